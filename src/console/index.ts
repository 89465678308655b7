// The compliance console's public module: its static routes for the composition root.
export { CONSOLE_CSP, consoleDir, consoleRoutes } from './route.js';
