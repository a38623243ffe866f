// Embind glue for the module itself: the error slot the JS wrapper checks
// after every call (see common.hpp), and the numbers the leak tests watch.
#include <emscripten/bind.h>
#include <emscripten/stack.h>
#include <emscripten/val.h>

#include <malloc.h>

#include <cstdint>
#include <string>

#include "common.hpp"

using namespace emscripten;
namespace b = attnlab::bindings;

namespace {

// The error flag's byte address: the JS wrapper reads the flag from the heap after each
// call (no call across the boundary for it).
double error_flag_address() { return static_cast<double>(reinterpret_cast<uintptr_t>(&b::error_flag())); }

// The pending message, and clears the slot.
std::string take_error() {
  std::string m;
  m.swap(b::error_slot());
  b::error_flag() = false;
  return m.empty() ? std::string("attnlab: unknown error") : m;
}

// Bytes the allocator has handed out and not yet received back: flat across
// repeated calls means no leak.
double heap_used() { return static_cast<double>(mallinfo().uordblks); }

// The stack pointer as seen by a call from JS: equal before and after any
// call, rejected or not, unless a frame was abandoned.
double stack_pointer() { return static_cast<double>(emscripten_stack_get_current()); }

}  // namespace

EMSCRIPTEN_BINDINGS(attnlab_core) {
  function("errorFlagAddress", &error_flag_address);
  function("takeError", &take_error);
  function("heapUsed", &heap_used);
  function("stackPointer", &stack_pointer);
}
