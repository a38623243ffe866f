// Pairs from a user's TSV: parsing rules, bad lines, Unicode tokens, vocabularies, splits.
#include <gtest/gtest.h>

#include <set>

#include "attnlab/core/error.hpp"
#include "attnlab/data/tsv_pairs.hpp"

using namespace attnlab::data;

namespace {
std::string error_of(const std::string& text, const TsvOptions& o = {}) {
  try {
    parse_tsv_pairs(text, "pairs.tsv", o);
  } catch (const attnlab::Error& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST(Tsv, ParsesPairsWithLineNumbersCrlfBomAndBlankLines) {
  const TsvPairs p = parse_tsv_pairs("\xEF\xBB\xBFone\t1\r\n\r\n  \ntwo words\tdeux mots\nlast\tno newline", "x");
  ASSERT_EQ(p.pairs.size(), 3u);
  EXPECT_EQ(p.pairs[0].src, "one");  // BOM dropped
  EXPECT_EQ(p.pairs[0].tgt, "1");    // \r dropped
  EXPECT_EQ(p.pairs[0].line, 1u);
  EXPECT_EQ(p.pairs[1].src, "two words");
  EXPECT_EQ(p.pairs[1].line, 4u);
  EXPECT_EQ(p.pairs[2].tgt, "no newline");
  EXPECT_EQ(p.lines, 5u);
  EXPECT_EQ(p.skipped, 0u);
}

TEST(Tsv, BadLinesAreErrorsNamingFileAndLine) {

  EXPECT_NE(error_of("a\tb\nno tab here\n").find("pairs.tsv: line 2: no tab"), std::string::npos);
  EXPECT_NE(error_of("a\tb\n\tb\n").find("line 2: empty source"), std::string::npos);
  EXPECT_NE(error_of("a\t  \n").find("line 1: empty target"), std::string::npos);
  EXPECT_NE(error_of("a\tb\tc\n").find("line 1: more than one tab"), std::string::npos);
  const std::string bad = error_of("ok\tfine\nbad \xC3\x28\tx\n");
  EXPECT_NE(bad.find("line 2: invalid UTF-8 (byte \\xC3 at column 5)"), std::string::npos) << bad;
  EXPECT_NE(error_of("\xED\xA0\x80\tsurrogate\n").find("invalid UTF-8"), std::string::npos);
  EXPECT_NE(error_of("\xC0\xAF\toverlong\n").find("invalid UTF-8"), std::string::npos);
  EXPECT_NE(error_of("a\tb\nc\n").find("--skip-bad"), std::string::npos);  // says what to do
}

TEST(Tsv, SkipBadCountsAndKeepsExamples) {
  TsvOptions o;
  o.skip_bad = true;
  const TsvPairs p = parse_tsv_pairs("a\tb\nnotab\n\tx\nc\td\n\xFF\tz\n", "x", o);
  ASSERT_EQ(p.pairs.size(), 2u);
  EXPECT_EQ(p.pairs[1].src, "c");
  EXPECT_EQ(p.skipped, 3u);
  ASSERT_EQ(p.skipped_examples.size(), 3u);
  EXPECT_EQ(p.skipped_examples[0], "line 2: no tab between source and target");
  EXPECT_NE(p.skipped_examples[2].find("line 5: invalid UTF-8"), std::string::npos);
}

TEST(Tsv, EmptyFileHasNoPairs) {
  EXPECT_TRUE(parse_tsv_pairs("", "x").pairs.empty());
  EXPECT_TRUE(parse_tsv_pairs("\xEF\xBB\xBF\n\r\n", "x").pairs.empty());
}

TEST(Tokens, CharTokensAreCodePoints) {
  EXPECT_EQ(split_tokens("你好!", TokenUnit::Char), (std::vector<std::string>{"你", "好", "!"}));
  EXPECT_EQ(split_tokens("é a", TokenUnit::Char), (std::vector<std::string>{"é", " ", "a"}));
  EXPECT_EQ(split_tokens("😀x", TokenUnit::Char), (std::vector<std::string>{"😀", "x"}));
  EXPECT_THROW(split_tokens("a\xE4\xBD", TokenUnit::Char), attnlab::Error);  // cut sequence
}

TEST(Tokens, WordTokensSplitOnWhitespaceRuns) {
  EXPECT_EQ(split_tokens("  one\ttwo  three ", TokenUnit::Word), (std::vector<std::string>{"one", "two", "three"}));
  EXPECT_EQ(split_tokens("我 爱 你", TokenUnit::Word), (std::vector<std::string>{"我", "爱", "你"}));
  EXPECT_EQ(parse_token_unit("word"), TokenUnit::Word);
  EXPECT_THROW(parse_token_unit("bpe"), attnlab::Error);
}

using Toks = std::vector<std::string>;

TEST(Tokens, WordPunctLowercasesAndSplitsOffPunctuation) {
  EXPECT_EQ(parse_token_unit("wordpunct"), TokenUnit::WordPunct);
  EXPECT_STREQ(token_unit_name(TokenUnit::WordPunct), "wordpunct");
  EXPECT_EQ(split_tokens("I am Chinese.", TokenUnit::WordPunct), (Toks{"i", "am", "chinese", "."}));
  EXPECT_EQ(split_tokens("Don't you like baseball?", TokenUnit::WordPunct),
            (Toks{"don't", "you", "like", "baseball", "?"}));
  EXPECT_EQ(split_tokens("Tom's dog, \"Rex\"!", TokenUnit::WordPunct),
            (Toks{"tom's", "dog", ",", "\"", "rex", "\"", "!"}));
  // an apostrophe not between letters is punctuation
  EXPECT_EQ(split_tokens("'Hello' the boys' 90's", TokenUnit::WordPunct),
            (Toks{"'", "hello", "'", "the", "boys", "'", "90", "'", "s"}));
  // numbers: kept whole, with a decimal point or thousands comma between digits
  EXPECT_EQ(split_tokens("The war ended in 1945.", TokenUnit::WordPunct),
            (Toks{"the", "war", "ended", "in", "1945", "."}));
  EXPECT_EQ(split_tokens("It costs $3.50, not 1,000.", TokenUnit::WordPunct),
            (Toks{"it", "costs", "$", "3.50", ",", "not", "1,000", "."}));
  EXPECT_EQ(split_tokens("MP3s at 9:30 (2-3 h)", TokenUnit::WordPunct),
            (Toks{"mp3s", "at", "9", ":", "30", "(", "2", "-", "3", "h", ")"}));
  // Unicode: Latin-1, Greek and Cyrillic capitals lowercased; curly quotes, dashes, the
  // ellipsis and CJK / full-width punctuation are tokens; other letters stay in words
  EXPECT_EQ(split_tokens("Café \xC3\x89T\xC3\x89 \xCE\x91\xCE\xB8\xCE\xAE\xCE\xBD\xCE\xB1 \xD0\x9C\xD0\xBE\xD1\x81\xD0\xBA\xD0\xB2\xD0\xB0",
                         TokenUnit::WordPunct),
            (Toks{"café", "\xC3\xA9t\xC3\xA9", "\xCE\xB1\xCE\xB8\xCE\xAE\xCE\xBD\xCE\xB1", "\xD0\xBC\xD0\xBE\xD1\x81\xD0\xBA\xD0\xB2\xD0\xB0"}));
  EXPECT_EQ(split_tokens("\xE2\x80\x9CIt\xE2\x80\x99s\xE2\x80\x9D \xE2\x80\x94 wait\xE2\x80\xA6", TokenUnit::WordPunct),
            (Toks{"\xE2\x80\x9C", "it\xE2\x80\x99s", "\xE2\x80\x9D", "\xE2\x80\x94", "wait", "\xE2\x80\xA6"}));
  EXPECT_EQ(split_tokens("我是华人。你好，Tom！", TokenUnit::WordPunct),
            (Toks{"我是华人", "。", "你好", "，", "tom", "！"}));
  EXPECT_EQ(split_tokens("a\xC2\xA0" "b\xE3\x80\x80" "c", TokenUnit::WordPunct), (Toks{"a", "b", "c"}));  // NBSP, ideographic space
  EXPECT_TRUE(split_tokens(" \t ", TokenUnit::WordPunct).empty());
  EXPECT_THROW(split_tokens("ok \xFF", TokenUnit::WordPunct), attnlab::Error);
}

TEST(Tokens, JoinTokensDetokenizes) {
  EXPECT_EQ(join_tokens({"我", "是", "华", "人", "。"}, TokenUnit::Char), "我是华人。");
  EXPECT_EQ(join_tokens({"汤", "姆", "有", "3", "只", "猫", "，", "T", "o", "m", " ", "A", "。"}, TokenUnit::Char),
            "汤姆有3只猫，Tom A。");
  EXPECT_EQ(join_tokens({"a", "b"}, TokenUnit::Word), "a b");
  EXPECT_EQ(join_tokens({"i", "am", "chinese", "."}, TokenUnit::WordPunct), "i am chinese.");
  EXPECT_EQ(join_tokens({"it", "costs", "$", "3.50", ",", "(", "not", "1,000", ")", "!"}, TokenUnit::WordPunct),
            "it costs $ 3.50, (not 1,000)!");
  EXPECT_EQ(join_tokens({}, TokenUnit::WordPunct), "");
}

TEST(Tokens, RoundTripsOnUnicodePunctuationAndNumbers) {
  const std::vector<std::string> texts = {
      "I am Chinese.", "Don't you like baseball?", "It costs $3.50, not 1,000.", "The war ended in 1945.",
      "'Hello' the boys' 90's", "\xE2\x80\x9CIt\xE2\x80\x99s\xE2\x80\x9D \xE2\x80\x94 wait\xE2\x80\xA6",
      "我是华人。你好，Tom！", "9:30 (2-3 h) [x] {y} 50% 3 . 5 3. 5 3 .5", "don 't o' clock rock'n'roll",
      "Café ÉTÉ \xD0\x9C\xD0\xBE\xD1\x81\xD0\xBA\xD0\xB2\xD0\xB0 😀!", "...,,,!!!", "a.b,c", "1,,2..3"};
  for (const std::string& t : texts) {
    // words: tokens -> text -> the same tokens
    const Toks w = split_tokens(t, TokenUnit::WordPunct);
    EXPECT_EQ(split_tokens(join_tokens(w, TokenUnit::WordPunct), TokenUnit::WordPunct), w) << t;
    // characters: the text itself comes back, spaces and all (a Chinese sentence has none added)
    EXPECT_EQ(join_tokens(split_tokens(t, TokenUnit::Char), TokenUnit::Char), t);
  }
}

TEST(TokenVocab, MinCountLeavesRareTokensToUnk) {
  const std::vector<std::vector<std::string>> seqs = {{"a", "b", "a"}, {"c", "a", "b"}, {"<s>", "d"}};
  const Vocab v1 = build_token_vocab(seqs, 1);
  EXPECT_EQ(v1.size(), 4u + 4u);  // a b c d (a literal "<s>" is not a new entry)
  EXPECT_EQ(v1.token(4), "a");    // most frequent first
  EXPECT_EQ(v1.token(5), "b");
  const Vocab v2 = build_token_vocab(seqs, 2);
  EXPECT_EQ(v2.size(), 6u);
  EXPECT_FALSE(v2.contains("c"));
  EXPECT_EQ(encode_tokens(v2, {"a", "c", "b", "<s>"}), (std::vector<int>{4, Vocab::kUnk, 5, Vocab::kUnk}));
  EXPECT_THROW(build_token_vocab(seqs, 0), attnlab::Error);
}

TEST(PairSplit, SeededBySourceAndIndependentOfOrder) {
  std::vector<TextPair> pairs;
  for (int i = 0; i < 2000; ++i) pairs.push_back({"src" + std::to_string(i), "t", size_t(i + 1)});
  pairs.push_back({"src7", "another target", 2001});  // same source: same split as src7
  const SplitFractions f = parse_split_fractions("80/10/10");
  EXPECT_NEAR(f.train, 0.8, 1e-12);
  const PairSplit a = split_pairs(pairs, 5, f);
  EXPECT_EQ(a.train.size() + a.valid.size() + a.test.size(), pairs.size());
  EXPECT_GT(a.valid.size(), 120u);
  EXPECT_LT(a.valid.size(), 280u);
  auto where = [](const PairSplit& s, const std::string& src) {
    for (const auto* v : {&s.train, &s.valid, &s.test})
      for (const auto& p : *v)
        if (p.src == src) return v == &s.train ? 0 : v == &s.valid ? 1 : 2;
    return -1;
  };
  int same = 0;
  for (const auto* v : {&a.train, &a.valid, &a.test})
    for (const auto& p : *v) same += p.src == "src7" ? 1 : 0;
  EXPECT_EQ(same, 2);
  std::vector<TextPair> rev(pairs.rbegin(), pairs.rend());
  const PairSplit b = split_pairs(rev, 5, f);
  for (int i = 0; i < 50; ++i) EXPECT_EQ(where(a, "src" + std::to_string(i)), where(b, "src" + std::to_string(i)));
  EXPECT_THROW(parse_split_fractions("90/10"), attnlab::Error);
  EXPECT_THROW(parse_split_fractions("0/5/5"), attnlab::Error);
  EXPECT_THROW(parse_split_fractions("90/-5/15"), attnlab::Error);
  EXPECT_THROW(parse_split_fractions("90/5/5/1"), attnlab::Error);
}

#include "attnlab/data/number_words.hpp"

// hand-written numbers in words: (number, english_number or chinese_number of it)
TEST(NumberWords, English) {
  const std::pair<uint64_t, std::string> cases[] = {
      {0, "zero"},
      {13, "thirteen"},
      {40, "forty"},
      {105, "one hundred five"},
      {3412, "three thousand four hundred twelve"},
      {20000, "twenty thousand"},
      {999999, "nine hundred ninety nine thousand nine hundred ninety nine"},
  };
  for (const auto& [n, words] : cases) EXPECT_EQ(english_number(n), words) << n;
  EXPECT_THROW(english_number(1000000), attnlab::Error);
}

TEST(NumberWords, Chinese) {
  const std::pair<uint64_t, std::string> cases[] = {
      {0, "零"},
      {10, "十"},
      {15, "十五"},
      {115, "一百一十五"},
      {1010, "一千零一十"},
      {2005, "二千零五"},
      {3400, "三千四百"},
      {10015, "一万零一十五"},
      {120000, "十二万"},
      {12345678, "一千二百三十四万五千六百七十八"},
  };
  for (const auto& [n, words] : cases) EXPECT_EQ(chinese_number(n), words) << n;
}

TEST(NumberWords, PairsAreSeededDistinctAndParseBack) {
  const auto a = number_pairs(300, 9999, 7, "en", "words-digits");
  const auto b = number_pairs(300, 9999, 7, "en", "words-digits");
  ASSERT_EQ(a.size(), 300u);
  std::set<std::string> seen;
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].src, b[i].src);
    EXPECT_EQ(english_number(std::stoull(a[i].tgt)), a[i].src);
    seen.insert(a[i].tgt);
  }
  EXPECT_EQ(seen.size(), 300u);
  EXPECT_NE(number_pairs(300, 9999, 8, "en", "words-digits")[0].src, a[0].src);
  const auto all = number_pairs(2000, 999, 1, "zh", "digits-words");  // more than exist: all 1000
  EXPECT_EQ(all.size(), 1000u);
  const TsvPairs back = parse_tsv_pairs(pairs_tsv(all), "gen");
  ASSERT_EQ(back.pairs.size(), 1000u);
  EXPECT_EQ(back.pairs[5].tgt, all[5].tgt);
  EXPECT_THROW(number_pairs(1, 9, 1, "fr", "words-digits"), attnlab::Error);
}
