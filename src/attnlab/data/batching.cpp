#include "attnlab/data/batching.hpp"

#include <algorithm>

#include "attnlab/core/error.hpp"
#include "attnlab/core/rng.hpp"

namespace attnlab::data {

Batcher::Batcher(std::vector<size_t> lengths, size_t batch_size, uint64_t seed, bool shuffle,
                 bool bucket, bool drop_last, size_t bucket_batches)
    : lengths_(std::move(lengths)),
      batch_size_(batch_size),
      seed_(seed),
      shuffle_(shuffle),
      bucket_(bucket),
      drop_last_(drop_last),
      bucket_batches_(bucket_batches ? bucket_batches : 1) {
  ATTNLAB_CHECK(batch_size_ >= 1, "Batcher: expected batch_size >= 1, got ", batch_size_);
  ATTNLAB_CHECK(!lengths_.empty(), "Batcher: expected at least one sample");
  ATTNLAB_CHECK(!drop_last_ || lengths_.size() >= batch_size_, "Batcher: drop_last with ",
                lengths_.size(), " samples and batch size ", batch_size_, " leaves no batch");
}

size_t Batcher::num_batches() const {
  const size_t n = lengths_.size();
  return drop_last_ ? n / batch_size_ : (n + batch_size_ - 1) / batch_size_;
}

std::vector<std::vector<size_t>> Batcher::epoch(size_t e) const {
  const size_t n = lengths_.size();
  std::vector<size_t> order(n);
  for (size_t i = 0; i < n; ++i) order[i] = i;
  Rng rng(seed_ ^ (0x9E3779B97F4A7C15ull * (static_cast<uint64_t>(e) + 1)));
  if (shuffle_) rng.shuffle(order);
  if (bucket_) {
    const size_t chunk = batch_size_ * bucket_batches_;
    for (size_t s = 0; s < n; s += chunk) {
      auto b = order.begin() + static_cast<std::ptrdiff_t>(s);
      auto en = order.begin() + static_cast<std::ptrdiff_t>(std::min(n, s + chunk));
      std::stable_sort(b, en, [&](size_t x, size_t y) { return lengths_[x] < lengths_[y]; });
    }
  }
  std::vector<std::vector<size_t>> batches;
  for (size_t s = 0; s < n; s += batch_size_) {
    const size_t end = std::min(n, s + batch_size_);
    if (drop_last_ && end - s < batch_size_) break;
    batches.emplace_back(order.begin() + static_cast<std::ptrdiff_t>(s),
                         order.begin() + static_cast<std::ptrdiff_t>(end));
  }
  if (bucket_ && shuffle_) rng.shuffle(batches);
  return batches;
}

Padded pad_batch(const std::vector<std::vector<int>>& seqs, const std::vector<size_t>& idx,
                 int pad_id, size_t min_T) {
  ATTNLAB_CHECK(!idx.empty(), "pad_batch: expected at least one sample index");
  Padded p;
  p.B = idx.size();
  p.T = min_T;
  for (size_t i : idx) {
    ATTNLAB_CHECK(i < seqs.size(), "pad_batch: sample index ", i, " out of range (", seqs.size(),
                  " samples)");
    p.T = std::max(p.T, seqs[i].size());
  }
  p.ids.assign(p.B * p.T, pad_id);
  for (size_t b = 0; b < p.B; ++b) {
    const auto& s = seqs[idx[b]];
    std::copy(s.begin(), s.end(), p.ids.begin() + static_cast<std::ptrdiff_t>(b * p.T));
    p.lengths.push_back(s.size());
  }
  return p;
}

}  // namespace attnlab::data
