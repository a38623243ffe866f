// attnlab ships its own .wasm: keep it out of Vite's dependency pre-bundling
// (which would lose the file next to the module) and build module workers.
export default {
  optimizeDeps: { exclude: ['attnlab'] },
  worker: { format: 'es' },
  build: { target: 'es2022' },
};
