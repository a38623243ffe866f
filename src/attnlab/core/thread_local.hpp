// ATTNLAB_THREAD_LOCAL: thread_local storage where there are threads. The wasm build is
// single-threaded and uses bulk memory without atomics; wasm-ld then refuses thread-local
// storage ("'atomics' feature must be used in order to use thread-local storage"), so
// such variables are plain statics there.
#pragma once

#if defined(__EMSCRIPTEN__) && !defined(__EMSCRIPTEN_PTHREADS__)
#define ATTNLAB_THREAD_LOCAL
#else
#define ATTNLAB_THREAD_LOCAL thread_local
#endif
