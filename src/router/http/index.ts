export { API_DEFAULTS, type ApiSettings, type RouterApiTuning, type TlsMaterial } from './api-settings.js';
export { createRouterApi, type ListenOptions, type RouterApi } from './router-api.js';
export type { AnsweredRequest, RouterApiDeps } from './router-api-deps.js';
