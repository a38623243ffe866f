#include "attnlab/eval/seq_metrics.hpp"

namespace attnlab::eval {

size_t edit_distance_ids(const std::vector<int>& a, const std::vector<int>& b) { return edit_distance(a, b); }

size_t edit_distance_tokens(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  return edit_distance(a, b);
}

size_t edit_distance_chars(const std::string& a, const std::string& b) { return edit_distance(a, b); }

}  // namespace attnlab::eval
