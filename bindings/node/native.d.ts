// toolerr/native: the same API as toolerr, over the native addon (toolerr-native).
export * from './index.js';
