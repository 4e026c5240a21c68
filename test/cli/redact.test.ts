import { describe, expect, it } from 'vitest';
import { redact } from '../../src/cli/redact.js';

describe('the CLI hides passwords in what it prints', () => {
  it('masks the password of every URL and leaves the rest', () => {
    expect(
      redact(
        'connect ECONNREFUSED redis://app:s3cr%40t@redis:6379 and postgres://u:pw@db/app; redis://plain:6379',
      ),
    ).toBe('connect ECONNREFUSED redis://app:***@redis:6379 and postgres://u:***@db/app; redis://plain:6379');
  });

  it('masks a raw "@" in the password and a password in the query', () => {
    expect(redact('at redis://u:p@ss@h:1 and redis://h:2/0?db=1&password=qsecret&x=1')).toBe(
      'at redis://u:***@h:1 and redis://h:2/0?db=1&password=***&x=1',
    );
  });
});
