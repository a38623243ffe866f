// Batching: seeded shuffling, bucketing by length, padding. The batches of an
// epoch are a pure function of (seed, epoch), so a resumed run can rebuild the
// epoch it was in and skip to the right batch.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace attnlab::data {

class Batcher {
 public:
  // lengths: one per sample (used by bucketing); batch_size >= 1.
  // bucket: sort chunks of `bucket_batches` batches by length so a batch holds
  // similar lengths (less padding), then shuffle the batch order.
  Batcher(std::vector<size_t> lengths, size_t batch_size, uint64_t seed, bool shuffle = true,
          bool bucket = false, bool drop_last = false, size_t bucket_batches = 32);
  size_t num_samples() const { return lengths_.size(); }
  size_t num_batches() const;
  size_t batch_size() const { return batch_size_; }
  // sample indices of every batch of epoch e (0-based)
  std::vector<std::vector<size_t>> epoch(size_t e) const;

 private:
  std::vector<size_t> lengths_;
  size_t batch_size_;
  uint64_t seed_;
  bool shuffle_, bucket_, drop_last_;
  size_t bucket_batches_;
};

// Pads token sequences into (B, T) row-major ids, T = max length in the batch
// (at least min_T), with pad_id past each length.
struct Padded {
  size_t B = 0, T = 0;
  std::vector<int> ids;
  std::vector<size_t> lengths;
};
Padded pad_batch(const std::vector<std::vector<int>>& seqs, const std::vector<size_t>& idx,
                 int pad_id, size_t min_T = 1);

}  // namespace attnlab::data
