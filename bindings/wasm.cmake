# WebAssembly module: the library + Embind glue, as an ES module that runs in
# pages and Web Workers, and in Node through bindings/js/node.mjs (which hands
# it the .wasm bytes, working around emscripten 3.1.6's fetch() under Node 18+).
file(GLOB ATTNLAB_BINDING_SOURCES CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/bindings/*.cpp)
add_executable(attnlab_wasm ${ATTNLAB_BINDING_SOURCES})
set_target_properties(attnlab_wasm PROPERTIES OUTPUT_NAME attnlab SUFFIX ".js")
target_link_libraries(attnlab_wasm PRIVATE attnlab)
# the glue only marshals (no hot loops): optimized for size
target_compile_options(attnlab_wasm PRIVATE ${ATTNLAB_WARNINGS} -Os)
target_link_options(attnlab_wasm PRIVATE
  --bind
  -fwasm-exceptions
  # binaryen at -O3: -O2 gives 35 KB less and -Os 64 KB less, but both decode slower
  # (-O2 about 1.4x; node bench/wasm/seq2seq.mjs, G2P GRU and Transformer, int8)
  -O3
  -sMODULARIZE=1
  -sEXPORT_ES6=1
  -sEXPORT_NAME=createAttnlabModule
  -sENVIRONMENT=web,worker
  -sALLOW_MEMORY_GROWTH=1
  -sINITIAL_MEMORY=33554432
  -sDYNAMIC_EXECUTION=0
  -sFILESYSTEM=0
  -sEXPORTED_FUNCTIONS=_malloc,_free
  -sEXPORTED_RUNTIME_METHODS=HEAPF32,HEAPU8
  --emit-symbol-map)
# the layer API's marshalling copies whole tensors (staging buffer, checks, outputs):
# compiled for speed, so it costs little beside the layer it calls
set_source_files_properties(${CMAKE_SOURCE_DIR}/bindings/embind_layers.cpp PROPERTIES COMPILE_OPTIONS -O3)
