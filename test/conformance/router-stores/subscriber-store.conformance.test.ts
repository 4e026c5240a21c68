/**
 * The SubscriberStore's paused state and signing secrets on every adapter of
 * ../adapters.ts that provides the router's stores: saving a subscriber leaves them alone (so a
 * resubscription cannot undo a pause or a rotation), and the secrets change
 * only through their own one-step operations. (The rest of the catalogue is
 * in stores.conformance.test.ts.)
 */
import { expect, it } from 'vitest';
import { describeOnEachStores, expectKeys, subscriber } from '../../helpers/router-stores.js';

describeOnEachStores('router-subscriber-store', 'subscriber store ($name)', (open) => {
  it('keeps paused, the secrets and (when left out) ordered across saves; a new subscriber has neither', async () => {
    const s = open();
    // What a whole record says of paused and secrets is not saved: they have their own operations.
    await s.subscribers.saveSubscriber(subscriber('b', ['t'], { paused: true, signingSecrets: ['whsec_x'] }));
    expect(await s.subscribers.getSubscriber('b')).toEqual(subscriber('b', ['t']));
    await s.subscribers.saveSubscriber(subscriber('b', ['t'], { ordered: true }));
    await s.subscribers.addSigningSecret('b', 'whsec_two');
    await s.subscribers.addSigningSecret('b', 'whsec_one');
    expect(await s.subscribers.setPaused('b', true)).toBe(true);
    const { ordered: _, ...changed } = subscriber('b', ['u', 't'], {
      callback: 'https://b.test/v2',
      maxEvents: 1,
    });
    await s.subscribers.saveSubscriber(changed);
    expect(await s.subscribers.getSubscriber('b')).toEqual({
      ...changed,
      topics: ['t', 'u'],
      ordered: true,
      paused: true,
      signingSecrets: ['whsec_one', 'whsec_two'],
    });
    await s.subscribers.saveSubscriber({ ...changed, ordered: false });
    expect(await s.subscribers.getSubscriber('b')).toMatchObject({ ordered: false, paused: true });
  });

  it('adds and removes signing secrets each in one step: newest first, at most `keep`', async () => {
    const s = open();
    expect(await s.subscribers.addSigningSecret('nobody', 'whsec_0')).toBe(false);
    expect(await s.subscribers.removeSigningSecrets('nobody', 'all')).toBe('no-subscriber');
    await s.subscribers.saveSubscriber(subscriber('a', []));
    const secrets = async () => (await s.subscribers.getSubscriber('a'))?.signingSecrets;
    expect(await s.subscribers.removeSigningSecrets('a', 'all')).toBe('none');
    // Overlapping additions all land (up to keep).
    await Promise.all(
      ['whsec_1', 'whsec_2', 'whsec_3'].map((x) => s.subscribers.addSigningSecret('a', x, 3)),
    );
    expect([...((await secrets()) ?? [])].sort()).toEqual(['whsec_1', 'whsec_2', 'whsec_3']);
    expect(await s.subscribers.addSigningSecret('a', 'whsec_4')).toBe(true);
    expect(await secrets()).toHaveLength(2);
    expect((await secrets())?.[0]).toBe('whsec_4');
    expect(await s.subscribers.removeSigningSecrets('a', 'previous')).toBe('removed');
    expect(await secrets()).toEqual(['whsec_4']);
    expect(await s.subscribers.removeSigningSecrets('a', 'previous')).toBe('none');
    await expect(s.subscribers.addSigningSecret('a', 'whsec_5', 0)).rejects.toThrow(
      /keep must be a whole number >= 1/,
    );
    expect(await s.subscribers.removeSigningSecrets('a', 'all')).toBe('removed');
    expect(await secrets()).toEqual([]);
    await expectKeys(s, ['subscribers', 's:a']);
  });
});
