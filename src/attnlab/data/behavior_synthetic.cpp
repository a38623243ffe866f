#include "attnlab/core/checked.hpp"
#include "attnlab/data/behavior_synthetic.hpp"

#include <algorithm>
#include <cmath>

#include "attnlab/core/error.hpp"
#include "attnlab/core/rng.hpp"

namespace attnlab::data {

BehaviorData make_behavior_data(size_t n, const BehaviorOptions& o, uint64_t seed) {
  ATTNLAB_CHECK(o.categories > 0 && o.items >= o.categories,
                "behavior data: need categories > 0 and items >= categories, got items ", o.items,
                ", categories ", o.categories);
  ATTNLAB_CHECK(o.interests > 0 && o.interests <= o.categories,
                "behavior data: interests must be in [1, categories = ", o.categories, "], got ",
                o.interests);
  ATTNLAB_CHECK(o.min_len <= o.max_len && o.max_len > 0, "behavior data: need 0 < max_len and ",
                "min_len <= max_len, got min_len ", o.min_len, ", max_len ", o.max_len);
  ATTNLAB_CHECK(o.p_interest >= 0 && o.p_interest <= 1 && o.p_candidate_interest >= 0 &&
                    o.p_candidate_interest <= 1,
                "behavior data: probabilities must be in [0, 1]");
  BehaviorData d;
  d.n = n;
  d.T = o.max_len;
  // world: every category gets items (round robin), then a seeded shuffle
  Rng world(o.world_seed * 0x9E3779B97F4A7C15ull + 11);
  d.item_category.resize(o.items);
  for (size_t i = 0; i < o.items; ++i) d.item_category[i] = static_cast<int>(i % o.categories);
  world.shuffle(d.item_category);
  std::vector<std::vector<int>> by_cat(o.categories);
  for (size_t i = 0; i < o.items; ++i)
    by_cat[static_cast<size_t>(d.item_category[i])].push_back(static_cast<int>(i));

  Rng rng(seed * 0xD1B54A32D192ED03ull + 7);
  auto pick = [&](size_t c) {
    const auto& v = by_cat[c];
    return v[rng.below(static_cast<uint32_t>(v.size()))];
  };
  d.hist_items.assign(checked_product("behaviour synthetic: n x T", {n, d.T}), 0);
  d.hist_cats.assign(n * d.T, 0);
  d.hist_len.resize(n);
  d.cand_item.resize(n);
  d.cand_cat.resize(n);
  d.n_same.resize(n);
  d.label.resize(n);
  std::vector<size_t> cats(o.categories);
  for (size_t s = 0; s < n; ++s) {
    for (size_t c = 0; c < o.categories; ++c) cats[c] = c;
    rng.shuffle(cats);  // the user's interests: cats[0 .. interests)
    const size_t L = o.min_len + rng.below(static_cast<uint32_t>(o.max_len - o.min_len + 1));
    d.hist_len[s] = L;
    for (size_t t = 0; t < L; ++t) {
      const size_t c = rng.uniform() < o.p_interest
                           ? cats[rng.below(static_cast<uint32_t>(o.interests))]
                           : rng.below(static_cast<uint32_t>(o.categories));
      const int it = pick(c);
      d.hist_items[s * d.T + t] = it;
      d.hist_cats[s * d.T + t] = d.item_category[static_cast<size_t>(it)];
    }
    const size_t cc = rng.uniform() < o.p_candidate_interest
                          ? cats[rng.below(static_cast<uint32_t>(o.interests))]
                          : rng.below(static_cast<uint32_t>(o.categories));
    d.cand_item[s] = pick(cc);
    d.cand_cat[s] = static_cast<int>(cc);
    int same = 0;
    for (size_t t = 0; t < L; ++t) same += d.hist_cats[s * d.T + t] == static_cast<int>(cc);
    d.n_same[s] = same;
    const double p = 1.0 / (1.0 + std::exp(-o.slope * (same - o.center)));
    d.label[s] = rng.uniform() < p ? 1 : 0;
  }
  return d;
}

}  // namespace attnlab::data
