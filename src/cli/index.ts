export { addRouterCommand } from './router-command.js';
