import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// `npm run dev -w web` serves the app with hot reload and forwards /api to a server on port 3000.
export default defineConfig({
  plugins: [react()],
  build: { outDir: 'dist', emptyOutDir: true, sourcemap: true },
  server: { port: 5173, proxy: { '/api': 'http://localhost:3000' } },
});
