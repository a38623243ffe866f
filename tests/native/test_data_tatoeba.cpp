// The Tatoeba English-Chinese pairs shipped in datasets/: checksum, parsing with the
// attribution column, and the seeded 90/5/5 split by English sentence the en-zh model uses.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "attnlab/data/tsv_pairs.hpp"
#include "sha256_util.hpp"

using namespace attnlab::data;

namespace {
const std::string kPath = std::string(ATTNLAB_SOURCE_DIR) + "/datasets/tatoeba-cmn-eng/cmn.txt";
std::string read_all(const std::string& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}
TsvPairs load() {
  TsvOptions o;
  o.extra_columns = true;
  return load_tsv_pairs(kPath, o);
}
}  // namespace

TEST(Sha256, KnownVectors) {
  using attnlab::test::sha256_hex;
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  // two blocks (56 bytes: the padding spills into a second block)
  EXPECT_EQ(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

TEST(TatoebaData, Sha256) {
  const std::string text = read_all(kPath);
  ASSERT_EQ(text.size(), 4151383u) << kPath;
  EXPECT_EQ(attnlab::test::sha256_hex(text), "aa264a2447b26ab7c9d413f8321f9e2a779fd134b5118306b6e26a3499b3926e");
}

TEST(TatoebaData, ThreeColumnsNeedExtraColumns) {
  EXPECT_THROW(load_tsv_pairs(kPath), attnlab::Error);  // the attribution column is a third field
  const TsvPairs p = load();
  EXPECT_EQ(p.pairs.size(), 29155u);
  EXPECT_EQ(p.skipped, 0u);
  const TextPair* seed = nullptr;
  for (const auto& q : p.pairs)
    if (q.line == 678) seed = &q;
  ASSERT_NE(seed, nullptr);
  EXPECT_EQ(seed->src, "I am Chinese.");
  EXPECT_EQ(seed->tgt, "\xE6\x88\x91\xE6\x98\xAF\xE5\x8D\x8E\xE4\xBA\xBA\xE3\x80\x82");  // 我是华人。
  for (const auto& q : p.pairs) ASSERT_EQ(q.tgt.find('\t'), std::string::npos) << "line " << q.line;
}

TEST(TatoebaData, SplitByEnglishSentence) {
  const TsvPairs p = load();
  const PairSplit s = split_pairs(p.pairs, 1234, parse_split_fractions("90/5/5"));
  EXPECT_EQ(s.train.size(), 26201u);
  EXPECT_EQ(s.valid.size(), 1471u);
  EXPECT_EQ(s.test.size(), 1483u);
  // no English sentence in two splits
  std::map<std::string, int> where;
  int k = 0;
  for (const auto* part : {&s.train, &s.valid, &s.test}) {
    for (const auto& q : *part) {
      auto [it, fresh] = where.emplace(q.src, k);
      ASSERT_TRUE(fresh || it->second == k) << "'" << q.src << "' is in two splits";
    }
    ++k;
  }
  EXPECT_EQ(where.size(), 27661u);  // distinct English sentences
  // sentences with several translations exist, and each kept its translations together
  std::map<std::string, size_t> per_src;
  for (const auto& q : p.pairs) ++per_src[q.src];
  size_t multi = 0;
  for (const auto& [src, n] : per_src) multi += n > 1;
  EXPECT_GT(multi, 1000u);
  EXPECT_EQ(where.at("I am Chinese."), 0);  // the articles' sentence is a training sentence
}
