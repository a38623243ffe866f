// A built site served by scripts/serve.mjs in a process of its own, on a free port, as the demo
// is served (in the benchmark's own process the server would answer between the browser
// driver's messages, and it answered the page's requests up to several times slower).
//   const { base, close } = await serveApart(dir);
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { ROOT } from '../../tests/browser/helpers.mjs';

export function serveApart(dir) {
  const child = spawn(process.execPath, [join(ROOT, 'scripts/serve.mjs'), dir, '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((ok, fail) => {
    let out = '';
    child.on('exit', (code) => fail(new Error(`scripts/serve.mjs ${dir} exited (${code})`)));
    child.stdout.on('data', (d) => {
      out += d;
      const m = /http:\/\/127\.0\.0\.1:\d+\//.exec(out);
      if (m) ok({ base: m[0], close: () => child.kill() });
    });
  });
}
