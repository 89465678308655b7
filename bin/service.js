// `npm start`: the service from the TypeScript sources through tsx in a checkout, from the compiled dist/ in an
// install without dev dependencies (bin/launch.js). The image does not use this: it runs `node dist/src/main.js`.
import { launch } from './launch.js';

await launch('main');
