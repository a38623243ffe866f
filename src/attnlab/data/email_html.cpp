// E-mail pipeline, HTML and entities: markup -> plain text (html_to_text, step 5
// of the pipeline in email.hpp).
//
//  5. HTML (text/html parts, and text/plain bodies that contain <html or <body)
//     becomes text: comments, <script>, <style>, <title> and <xml> content are
//     dropped, block tags (p, div, tr, h1-6, table, ...) become paragraph
//     breaks, br/li become line breaks, other tags vanish, source whitespace
//     collapses, entities are decoded (numeric, and ~100 common named ones).
#include "attnlab/data/email.hpp"

#include "attnlab/data/email_detail.hpp"

namespace attnlab::data {

using namespace email_detail;

namespace {

struct Entity {
  const char* name;
  uint32_t cp;
};
const Entity kEntities[] = {
    {"amp", '&'},      {"lt", '<'},        {"gt", '>'},       {"quot", '"'},     {"apos", '\''},
    {"nbsp", 0xA0},    {"copy", 0xA9},     {"reg", 0xAE},     {"trade", 0x2122}, {"hellip", 0x2026},
    {"mdash", 0x2014}, {"ndash", 0x2013},  {"lsquo", 0x2018}, {"rsquo", 0x2019}, {"ldquo", 0x201C},
    {"rdquo", 0x201D}, {"sbquo", 0x201A},  {"bdquo", 0x201E}, {"bull", 0x2022},  {"middot", 0xB7},
    {"euro", 0x20AC},  {"pound", 0xA3},    {"yen", 0xA5},     {"cent", 0xA2},    {"sect", 0xA7},
    {"deg", 0xB0},     {"plusmn", 0xB1},   {"times", 0xD7},   {"divide", 0xF7},  {"laquo", 0xAB},
    {"raquo", 0xBB},   {"iexcl", 0xA1},    {"iquest", 0xBF},  {"para", 0xB6},    {"micro", 0xB5},
    {"frac12", 0xBD},  {"frac14", 0xBC},   {"frac34", 0xBE},  {"sup1", 0xB9},    {"sup2", 0xB2},
    {"sup3", 0xB3},    {"ordf", 0xAA},     {"ordm", 0xBA},    {"shy", 0xAD},     {"macr", 0xAF},
    {"acute", 0xB4},   {"cedil", 0xB8},    {"uml", 0xA8},     {"not", 0xAC},     {"curren", 0xA4},
    {"brvbar", 0xA6},  {"szlig", 0xDF},    {"agrave", 0xE0},  {"aacute", 0xE1},  {"acirc", 0xE2},
    {"atilde", 0xE3},  {"auml", 0xE4},     {"aring", 0xE5},   {"aelig", 0xE6},   {"ccedil", 0xE7},
    {"egrave", 0xE8},  {"eacute", 0xE9},   {"ecirc", 0xEA},   {"euml", 0xEB},    {"igrave", 0xEC},
    {"iacute", 0xED},  {"icirc", 0xEE},    {"iuml", 0xEF},    {"eth", 0xF0},     {"ntilde", 0xF1},
    {"ograve", 0xF2},  {"oacute", 0xF3},   {"ocirc", 0xF4},   {"otilde", 0xF5},  {"ouml", 0xF6},
    {"oslash", 0xF8},  {"ugrave", 0xF9},   {"uacute", 0xFA},  {"ucirc", 0xFB},   {"uuml", 0xFC},
    {"yacute", 0xFD},  {"thorn", 0xFE},    {"yuml", 0xFF},    {"Agrave", 0xC0},  {"Aacute", 0xC1},
    {"Acirc", 0xC2},   {"Atilde", 0xC3},   {"Auml", 0xC4},    {"Aring", 0xC5},   {"AElig", 0xC6},
    {"Ccedil", 0xC7},  {"Egrave", 0xC8},   {"Eacute", 0xC9},  {"Ecirc", 0xCA},   {"Euml", 0xCB},
    {"Igrave", 0xCC},  {"Iacute", 0xCD},   {"Icirc", 0xCE},   {"Iuml", 0xCF},    {"Ntilde", 0xD1},
    {"Ograve", 0xD2},  {"Oacute", 0xD3},   {"Ocirc", 0xD4},   {"Otilde", 0xD5},  {"Ouml", 0xD6},
    {"Oslash", 0xD8},  {"Ugrave", 0xD9},   {"Uacute", 0xDA},  {"Ucirc", 0xDB},   {"Uuml", 0xDC},
    {"Yacute", 0xDD},  {"zwnj", 0x200C},   {"zwj", 0x200D},   {"ensp", 0x2002},  {"emsp", 0x2003},
    {"thinsp", 0x2009}};

enum class TagKind { Inline, Line, Block, Skip };

TagKind tag_kind(std::string_view name) {
  static const char* const skip[] = {"script", "style", "title", "xml"};
  static const char* const line[] = {"br", "li", "dd", "dt", "option"};
  static const char* const block[] = {"p",  "div", "tr", "table", "h1", "h2", "h3", "h4",
                                      "h5", "h6",  "ul", "ol",    "hr", "blockquote",
                                      "pre", "center", "form", "body", "html", "head",
                                      "address", "section", "article", "header", "footer",
                                      "tbody", "thead", "dl", "fieldset"};
  for (const char* t : skip)
    if (iequals(name, t)) return TagKind::Skip;
  for (const char* t : line)
    if (iequals(name, t)) return TagKind::Line;
  for (const char* t : block)
    if (iequals(name, t)) return TagKind::Block;
  return TagKind::Inline;
}

// End of a tag starting at s[i] == '<' (index after '>'), honoring quoted attributes.
size_t tag_end(std::string_view s, size_t i) {
  char q = 0;
  for (size_t k = i + 1; k < s.size(); ++k) {
    const char c = s[k];
    if (q) {
      if (c == q) q = 0;
    } else if (c == '"' || c == '\'') {
      // a quote only opens inside an attribute value (after '=')
      size_t p = k;
      while (p > i && is_space(static_cast<unsigned char>(s[p - 1]))) --p;
      if (p > i && s[p - 1] == '=') q = c;
    } else if (c == '>') {
      return k + 1;
    }
  }
  return s.size();
}

// Case-insensitive find of needle in s from pos.
size_t ifind(std::string_view s, std::string_view needle, size_t pos) {
  if (needle.empty()) return pos;
  for (size_t i = pos; i + needle.size() <= s.size(); ++i)
    if (lower(s[i]) == lower(needle[0]) && iequals(s.substr(i, needle.size()), needle)) return i;
  return std::string_view::npos;
}

// The character reference at s[i] == '&' (numeric, or a named one from kEntities):
// sets *cp_out and returns the index after it (after its ';' if any), or 0 if there is none.
size_t decode_entity(std::string_view s, size_t i, uint32_t* cp_out) {
  size_t k = i + 1;
  uint32_t cp = 0;
  bool ok = false;
  if (k < s.size() && s[k] == '#') {
    ++k;
    const bool hex = k < s.size() && (s[k] == 'x' || s[k] == 'X');
    if (hex) ++k;
    const size_t db = k;
    uint64_t val = 0;
    while (k < s.size() && k - db < 8 &&
           (hex ? hex_val(static_cast<unsigned char>(s[k])) >= 0 : is_digit(static_cast<unsigned char>(s[k])))) {
      val = val * (hex ? 16 : 10) + static_cast<uint64_t>(hex ? hex_val(static_cast<unsigned char>(s[k])) : s[k] - '0');
      ++k;
    }
    if (k > db) {
      ok = true;
      cp = val == 0 || val > 0x10FFFF ? 0xFFFD : static_cast<uint32_t>(val);
      if (cp >= 0x80 && cp < 0xA0) cp = kCp1252[cp - 0x80];  // as browsers do
      if (k < s.size() && s[k] == ';') ++k;
    }
  } else {
    const size_t nb = k;
    while (k < s.size() && k - nb < 10 && is_alnum(static_cast<unsigned char>(s[k]))) ++k;
    if (k < s.size() && s[k] == ';' && k > nb) {
      const std::string_view name = s.substr(nb, k - nb);
      for (const Entity& en : kEntities)
        if (name == en.name) {
          cp = en.cp, ok = true;
          break;
        }
      if (!ok)  // case-insensitive second try (&AMP; &NBSP;)
        for (const Entity& en : kEntities)
          if (iequals(name, en.name)) {
            cp = en.cp, ok = true;
            break;
          }
      if (ok) ++k;
    }
  }
  if (!ok) return 0;
  *cp_out = cp;
  return k;
}

}  // namespace

std::string html_to_text(std::string_view s) {
  std::string out;
  out.reserve(s.size() / 2);
  bool space = false;  // pending collapsed whitespace
  auto put_break = [&](const char* br) {
    // trailing spaces before a break are dropped; at most two newlines in a row
    while (!out.empty() && out.back() == ' ') out.pop_back();
    space = false;
    for (const char* p = br; *p; ++p) {
      size_t nl = 0;
      for (size_t k = out.size(); k > 0 && out[k - 1] == '\n'; --k) ++nl;
      if (nl < 2 && !out.empty()) out += '\n';
    }
  };
  auto put_char = [&](const char* p, size_t n) {
    if (space && !out.empty() && out.back() != '\n') out += ' ';
    space = false;
    out.append(p, n);
  };
  size_t i = 0;
  while (i < s.size()) {
    const char c = s[i];
    if (c == '<') {
      if (s.compare(i, 4, "<!--") == 0) {
        const size_t e = s.find("-->", i + 4);
        i = e == std::string_view::npos ? s.size() : e + 3;
        continue;
      }
      size_t k = i + 1;
      bool closing = false;
      if (k < s.size() && s[k] == '/') closing = true, ++k;
      const size_t name_b = k;
      while (k < s.size() && (is_alnum(static_cast<unsigned char>(s[k])) || s[k] == ':')) ++k;
      if (k == name_b) {
        if (k < s.size() && (s[k] == '!' || s[k] == '?')) {  // <!DOCTYPE>, <?xml?>
          i = tag_end(s, i);
          continue;
        }
        put_char("<", 1);  // a lone '<' is text
        ++i;
        continue;
      }
      const std::string_view name = s.substr(name_b, k - name_b);
      const size_t e = tag_end(s, i);
      const TagKind kind = tag_kind(name);
      if (kind == TagKind::Skip && !closing) {
        const std::string close = "</" + std::string(name);
        const size_t ce = ifind(s, close, e);
        i = ce == std::string_view::npos ? s.size() : tag_end(s, ce);
        continue;
      }
      if (kind == TagKind::Block) put_break("\n\n");
      else if (kind == TagKind::Line) put_break("\n");
      else if (iequals(name, "td") || iequals(name, "th")) space = true;
      i = e;
      continue;
    }
    if (c == '&') {
      uint32_t cp = 0;
      if (const size_t k = decode_entity(s, i, &cp)) {
        if (cp == 0xA0 || cp == '\t' || cp == '\n' || cp == '\r' || cp == ' ') {
          space = true;
        } else {
          std::string tmp;
          append_utf8(tmp, cp);
          put_char(tmp.data(), tmp.size());
        }
        i = k;
        continue;
      }
      put_char("&", 1);
      ++i;
      continue;
    }
    if (is_space(static_cast<unsigned char>(c))) {
      space = true;
      ++i;
      continue;
    }
    // a run of ordinary text
    size_t j = i + 1;
    while (j < s.size() && s[j] != '<' && s[j] != '&' && !is_space(static_cast<unsigned char>(s[j]))) ++j;
    put_char(s.data() + i, j - i);
    i = j;
  }
  while (!out.empty() && (out.back() == ' ' || out.back() == '\n')) out.pop_back();
  return out;
}

}  // namespace attnlab::data
