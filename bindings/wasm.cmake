# placeholder: wasm targets are added in bindings/wasm.cmake
