#include "attnlab/io/safetensors.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>

#include <sys/stat.h>

#include <nlohmann/json.hpp>

namespace attnlab::io {

using json = nlohmann::json;
using ojson = nlohmann::ordered_json;

const char* dtype_name(DType d) { return d == DType::F16 ? "F16" : "F32"; }
DType dtype_from_string(const std::string& s) {
  if (s == "f32" || s == "F32" || s == "float32") return DType::F32;
  if (s == "f16" || s == "F16" || s == "float16") return DType::F16;
  throw Error("unknown storage dtype '" + s + "': expected f32 or f16");
}

// ---------------------------------------------------------------- half floats
uint16_t float_to_half(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  const uint16_t sign = static_cast<uint16_t>((x >> 16) & 0x8000u);
  const uint32_t exp = (x >> 23) & 0xffu;
  const uint32_t mant = x & 0x7fffffu;
  if (exp == 0xff) return static_cast<uint16_t>(sign | (mant ? 0x7e00u : 0x7c00u));  // NaN / inf
  const int e = static_cast<int>(exp) - 127 + 15;
  if (e >= 31) return static_cast<uint16_t>(sign | 0x7c00u);  // overflow -> inf
  if (e <= 0) {                                                // subnormal half or zero
    if (e < -10) return sign;  // below half the smallest subnormal: rounds to 0
    const uint32_t m = mant | 0x800000u;
    const uint32_t shift = static_cast<uint32_t>(14 - e);
    uint32_t h = m >> shift;
    const uint32_t rem = m & ((1u << shift) - 1u);
    const uint32_t halfway = 1u << (shift - 1);
    if (rem > halfway || (rem == halfway && (h & 1u))) ++h;
    return static_cast<uint16_t>(sign | h);
  }
  uint32_t h = (static_cast<uint32_t>(e) << 10) | (mant >> 13);
  const uint32_t rem = mant & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) ++h;  // carry may reach inf: correct
  return static_cast<uint16_t>(sign | h);
}

float half_to_float(uint16_t h) {
  const uint32_t sign = (h & 0x8000u) << 16;
  const uint32_t e = (h >> 10) & 0x1fu;
  const uint32_t m = h & 0x3ffu;
  uint32_t bits;
  if (e == 0) {
    const float v = static_cast<float>(m) * 5.9604644775390625e-8f;  // m * 2^-24
    return sign ? -v : v;
  } else if (e == 31) {
    bits = sign | 0x7f800000u | (m << 13);
  } else {
    bits = sign | ((e + 112u) << 23) | (m << 13);
  }
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

// ---------------------------------------------------------------- SafeTensors
uint64_t SafeTensors::total_elements() const {
  uint64_t n = 0;
  for (const TensorData& t : tensors) n += t.data.size();
  return n;
}

const TensorData* SafeTensors::find(const std::string& name) const {
  for (auto& t : tensors)
    if (t.name == name) return &t;
  return nullptr;
}
const TensorData& SafeTensors::get(const std::string& name) const {
  const TensorData* t = find(name);
  ATTNLAB_CHECK(t, "safetensors: no tensor named '", name, "' in the file");
  return *t;
}
std::string SafeTensors::meta(const std::string& key, const std::string& fallback) const {
  auto it = metadata.find(key);
  return it == metadata.end() ? fallback : it->second;
}

namespace {
std::string shape_string(const std::vector<size_t>& s) {
  std::string r = "(";
  for (size_t i = 0; i < s.size(); ++i) r += (i ? "," : "") + std::to_string(s[i]);
  return r + ")";
}
size_t numel(const std::vector<size_t>& s) {
  size_t n = 1;
  for (size_t d : s) n *= d;
  return n;
}
}  // namespace

// ---------------------------------------------------------------- encode
std::vector<uint8_t> encode(const std::vector<TensorView>& tensors,
                            const std::map<std::string, std::string>& metadata, DType dtype) {
  const size_t esz = dtype == DType::F16 ? 2 : 4;
  ojson header = ojson::object();
  if (!metadata.empty()) {
    ojson m = ojson::object();
    for (auto& kv : metadata) m[kv.first] = kv.second;
    header["__metadata__"] = m;
  }
  size_t off = 0;
  for (auto& t : tensors) {
    ATTNLAB_CHECK(!t.name.empty() && t.name != "__metadata__",
                  "safetensors: invalid tensor name '", t.name, "'");
    ATTNLAB_CHECK(!header.contains(t.name), "safetensors: tensor name '", t.name,
                  "' appears twice");
    const size_t bytes = numel(t.shape) * esz;
    header[t.name] = {{"dtype", dtype_name(dtype)}, {"shape", t.shape},
                      {"data_offsets", {off, off + bytes}}};
    off += bytes;
  }
  std::string hs = header.dump();
  while (hs.size() % 8) hs.push_back(' ');  // pad so the data region is 8-byte aligned
  std::vector<uint8_t> out(8 + hs.size() + off);
  const uint64_t n = hs.size();
  for (int i = 0; i < 8; ++i) out[i] = static_cast<uint8_t>(n >> (8 * i));
  std::memcpy(out.data() + 8, hs.data(), hs.size());
  uint8_t* p = out.data() + 8 + hs.size();
  for (auto& t : tensors) {
    const size_t cnt = numel(t.shape);
    if (dtype == DType::F32) {
      if (cnt) std::memcpy(p, t.data, cnt * 4);  // little-endian hosts (x86, wasm)
    } else {
      for (size_t i = 0; i < cnt; ++i) {
        const uint16_t h = float_to_half(t.data[i]);
        p[2 * i] = static_cast<uint8_t>(h & 0xff);
        p[2 * i + 1] = static_cast<uint8_t>(h >> 8);
      }
    }
    p += cnt * esz;
  }
  return out;
}

// ---------------------------------------------------------------- decode
namespace {

struct Span {  // a tensor's bytes in the data region
  size_t begin, end, index;
};

// One tensor entry of the header: dtype, shape and data_offsets checked against the data region.
TensorData parse_entry(const std::string& name, const json& v, size_t data_size, Span* span) {
  ATTNLAB_CHECK(v.is_object(), "safetensors: tensor '", name,
                "': expected an object with dtype, shape, data_offsets, got ", v.type_name());
  ATTNLAB_CHECK(v.contains("dtype") && v["dtype"].is_string(), "safetensors: tensor '", name,
                "': missing or non-string 'dtype'");
  ATTNLAB_CHECK(v.contains("shape") && v["shape"].is_array(), "safetensors: tensor '", name,
                "': missing or non-array 'shape'");
  ATTNLAB_CHECK(v.contains("data_offsets") && v["data_offsets"].is_array() &&
                    v["data_offsets"].size() == 2,
                "safetensors: tensor '", name, "': expected 'data_offsets' [begin, end]");
  const std::string dt = v["dtype"].get<std::string>();
  ATTNLAB_CHECK(dt == "F32" || dt == "F16", "safetensors: tensor '", name, "': dtype '", dt,
                "' is not supported (expected F32 or F16)");
  TensorData td;
  td.name = name;
  td.stored = dt == "F16" ? DType::F16 : DType::F32;
  const size_t esz = td.stored == DType::F16 ? 2 : 4;
  size_t count = 1;
  for (const json& d : v["shape"]) {
    ATTNLAB_CHECK(d.is_number_unsigned() || (d.is_number_integer() && d.get<int64_t>() >= 0),
                  "safetensors: tensor '", name, "': shape entries must be integers >= 0, got ",
                  d.dump());
    const uint64_t dim = d.get<uint64_t>();
    ATTNLAB_CHECK(dim == 0 || count <= (std::numeric_limits<size_t>::max() / esz) / dim,
                  "safetensors: tensor '", name, "': shape is too large");
    td.shape.push_back(static_cast<size_t>(dim));
    count *= static_cast<size_t>(dim);
  }
  for (const json& o : v["data_offsets"])
    ATTNLAB_CHECK(o.is_number_unsigned() || (o.is_number_integer() && o.get<int64_t>() >= 0),
                  "safetensors: tensor '", name, "': data_offsets must be integers >= 0, got ",
                  v["data_offsets"].dump());
  const uint64_t b = v["data_offsets"][0].get<uint64_t>();
  const uint64_t e = v["data_offsets"][1].get<uint64_t>();
  ATTNLAB_CHECK(b <= e, "safetensors: tensor '", name, "': data_offsets [", b, ", ", e,
                "] end before they begin");
  ATTNLAB_CHECK(e <= data_size, "safetensors: tensor '", name, "': data_offsets [", b, ", ", e,
                "] lie outside the data region of ", data_size, " bytes (truncated file?)");
  ATTNLAB_CHECK(e - b == count * esz, "safetensors: tensor '", name, "': shape ",
                shape_string(td.shape), " with dtype ", dt, " needs ", count * esz,
                " bytes, but data_offsets [", b, ", ", e, "] hold ", e - b);
  *span = {static_cast<size_t>(b), static_cast<size_t>(e), 0};
  return td;
}

// The tensors' offsets: in order, no overlap, no gap, covering the whole data region.
void check_spans(std::vector<Span>& spans, const std::vector<TensorData>& tensors, size_t data_size) {
  std::sort(spans.begin(), spans.end(), [](const Span& a, const Span& c) {
    return a.begin != c.begin ? a.begin < c.begin : a.end < c.end;
  });
  size_t pos = 0;
  for (size_t i = 0; i < spans.size(); ++i) {
    const Span& s = spans[i];
    const std::string& nm = tensors[s.index].name;
    if (s.begin < pos) {
      const Span& p = spans[i - 1];
      throw Error(detail::concat("safetensors: tensors '", tensors[p.index].name, "' [",
                                 p.begin, ", ", p.end, "] and '", nm, "' [", s.begin, ", ", s.end,
                                 "] overlap (expected disjoint data_offsets)"));
    }
    ATTNLAB_CHECK(s.begin == pos, "safetensors: gap of ", s.begin - pos, " bytes before tensor '",
                  nm, "' at offset ", s.begin, " (expected tensors to cover the data region ",
                  "contiguously)");
    pos = s.end;
  }
  ATTNLAB_CHECK(pos == data_size, "safetensors: the data region has ", data_size,
                " bytes but the tensors cover ", pos, " (trailing bytes: corrupt file?)");
}

}  // namespace

SafeTensors decode(const uint8_t* bytes, size_t size) {
  ATTNLAB_CHECK(size >= 8, "safetensors: the file has ", size,
                " bytes, too few for the 8-byte header length (truncated or empty file?)");
  uint64_t hlen = 0;
  for (int i = 0; i < 8; ++i) hlen |= static_cast<uint64_t>(bytes[i]) << (8 * i);
  ATTNLAB_CHECK(hlen <= kMaxHeaderBytes, "safetensors: header length ", hlen,
                " bytes exceeds the limit of ", kMaxHeaderBytes,
                " bytes (corrupt file, or not a safetensors file)");
  ATTNLAB_CHECK(hlen <= size - 8, "safetensors: header length ", hlen, " bytes but only ",
                size - 8, " bytes follow the length field (truncated file?)");
  ATTNLAB_CHECK(hlen >= 2, "safetensors: header length ", hlen,
                " is too small for a JSON object");
  json header;
  try {
    header = json::parse(bytes + 8, bytes + 8 + hlen);
  } catch (const json::exception& e) {
    throw Error(std::string("safetensors: the header is not valid JSON: ") + e.what());
  }
  ATTNLAB_CHECK(header.is_object(), "safetensors: expected the header to be a JSON object, got ",
                header.type_name());
  const size_t data_size = size - 8 - static_cast<size_t>(hlen);
  const uint8_t* data = bytes + 8 + hlen;

  SafeTensors st;
  std::vector<Span> spans;
  for (auto it = header.begin(); it != header.end(); ++it) {
    const std::string& name = it.key();
    const json& v = it.value();
    if (name == "__metadata__") {
      ATTNLAB_CHECK(v.is_object(), "safetensors: __metadata__ must be an object of strings, got ",
                    v.type_name());
      for (auto m = v.begin(); m != v.end(); ++m) {
        ATTNLAB_CHECK(m.value().is_string(), "safetensors: __metadata__ value of '", m.key(),
                      "' must be a string, got ", m.value().type_name());
        st.metadata[m.key()] = m.value().get<std::string>();
      }
      continue;
    }
    Span span{};
    TensorData td = parse_entry(name, v, data_size, &span);
    span.index = st.tensors.size();
    spans.push_back(span);
    st.tensors.push_back(std::move(td));
  }
  check_spans(spans, st.tensors, data_size);
  // convert to F32 and check values, in file order
  std::vector<TensorData> ordered;
  ordered.reserve(spans.size());
  for (const Span& s : spans) {
    TensorData& td = st.tensors[s.index];
    const size_t cnt = numel(td.shape);
    td.data.resize(cnt);
    const uint8_t* p = data + s.begin;
    if (td.stored == DType::F32) {
      if (cnt) std::memcpy(td.data.data(), p, cnt * 4);
    } else {
      for (size_t i = 0; i < cnt; ++i)
        td.data[i] = half_to_float(static_cast<uint16_t>(p[2 * i] | (p[2 * i + 1] << 8)));
    }
    for (size_t i = 0; i < cnt; ++i)
      ATTNLAB_CHECK(std::isfinite(td.data[i]), "safetensors: tensor '", td.name, "' holds ",
                    td.data[i], " at flat index ", i, " (expected finite values)");
    ordered.push_back(std::move(td));
  }
  st.tensors = std::move(ordered);
  return st;
}

// ---------------------------------------------------------------- files
std::vector<uint8_t> read_bytes(const std::string& path) {
  // stat before opening: opening a FIFO would block, a directory "opens" and
  // reads as garbage sizes, and /dev/zero reports size 0 but never ends
  struct stat st {};
  ATTNLAB_CHECK(::stat(path.c_str(), &st) == 0, "cannot open '", path,
                "' for reading (does the file exist?)");
  ATTNLAB_CHECK(!S_ISDIR(st.st_mode), "'", path, "' is a directory, expected a file");
  ATTNLAB_CHECK(S_ISREG(st.st_mode), "'", path,
                "' is not a regular file (a device, FIFO or socket); expected a file");
  ATTNLAB_CHECK(static_cast<uint64_t>(st.st_size) <= kMaxFileBytes, "'", path, "' is ",
                st.st_size, " bytes, more than the limit of ", kMaxFileBytes, " bytes");
  std::ifstream f(path, std::ios::binary);
  ATTNLAB_CHECK(f.good(), "cannot open '", path, "' for reading (permissions?)");
  f.seekg(0, std::ios::end);
  const std::streamoff n = f.tellg();
  ATTNLAB_CHECK(n >= 0 && static_cast<uint64_t>(n) <= kMaxFileBytes, "cannot read the size of '",
                path, "'");
  f.seekg(0, std::ios::beg);
  std::vector<uint8_t> b(static_cast<size_t>(n));
  if (n > 0) f.read(reinterpret_cast<char*>(b.data()), n);
  ATTNLAB_CHECK(f.good() || f.eof(), "failed to read '", path, "'");
  return b;
}

void write_bytes(const std::string& path, const std::vector<uint8_t>& bytes) {
  // Write a temporary file beside the target, then rename it over the target: a reader (or a
  // crash) sees the old file or the new one, never half a file. The temporary name carries the
  // process id and a counter so concurrent writers do not share it; it is removed on failure.
  static unsigned counter = 0;
  const std::string tmp =
      path + ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
  bool ok = false;
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    if (!f.good())
      throw Error("cannot open '" + tmp + "' for writing '" + path +
                  "' (does the directory exist and is it writable?)");
    f.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
    f.flush();
    ok = f.good();
  }
  if (!ok) {
    std::remove(tmp.c_str());
    throw Error("failed to write " + std::to_string(bytes.size()) + " bytes to '" + path + "'");
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    throw Error("cannot replace '" + path + "' (rename from '" + tmp + "' failed)");
  }
}

void write_text(const std::string& path, const std::string& text) {
  write_bytes(path, std::vector<uint8_t>(text.begin(), text.end()));
}

SafeTensors read_file(const std::string& path) {
  const std::vector<uint8_t> b = read_bytes(path);
  try {
    return decode(b.data(), b.size());
  } catch (const Error& e) {
    throw Error(path + ": " + e.what());
  }
}

// ---------------------------------------------------------------- ParamList glue
std::vector<TensorView> param_views(const ParamList& params, const std::string& prefix) {
  std::vector<TensorView> v;
  for (auto& it : params.items()) {
    const xt::xarray<float>& val = it.second->value;
    v.push_back({prefix + it.first, std::vector<size_t>(val.shape().begin(), val.shape().end()),
                 val.data()});
  }
  return v;
}

void load_params(const SafeTensors& st, const ParamList& params, const std::string& prefix,
                 bool strict) {
  for (auto& it : params.items()) {
    const std::string key = prefix + it.first;
    const TensorData* t = st.find(key);
    ATTNLAB_CHECK(t, "model file: missing tensor '", key, "' (expected shape ",
                  shape_string(std::vector<size_t>(it.second->value.shape().begin(),
                                                   it.second->value.shape().end())),
                  ")");
    const std::vector<size_t> want(it.second->value.shape().begin(),
                                   it.second->value.shape().end());
    ATTNLAB_CHECK(t->shape == want, "model file: tensor '", key, "' has shape ",
                  shape_string(t->shape), " but the model expects ", shape_string(want),
                  " (config and weights disagree)");
  }
  if (strict) {
    for (auto& t : st.tensors) {
      if (t.name.compare(0, prefix.size(), prefix) != 0) continue;
      bool known = false;
      for (auto& it : params.items()) known = known || prefix + it.first == t.name;
      ATTNLAB_CHECK(known, "model file: unexpected tensor '", t.name,
                    "' (the model has no such parameter; config and weights disagree)");
    }
  }
  for (auto& it : params.items()) {
    const TensorData& t = *st.find(prefix + it.first);
    std::copy(t.data.begin(), t.data.end(), it.second->value.data());
  }
}

// ---------------------------------------------------------------- model files
std::vector<uint8_t> save_model(const ModelInfo& info, const ParamList& params, DType dtype) {
  ATTNLAB_CHECK(!info.kind.empty(), "save_model: expected a model kind");
  std::map<std::string, std::string> meta = info.extra;
  meta["kind"] = info.kind;
  meta["config"] = info.config.empty() ? "{}" : info.config;
  meta["vocab"] = json(info.vocab).dump();
  meta["format"] = "attnlab-model-1";
  return encode(param_views(params), meta, dtype);
}

ModelInfo model_info(const SafeTensors& st) {
  ModelInfo m;
  m.kind = st.meta("kind");
  ATTNLAB_CHECK(!m.kind.empty(),
                "model file: __metadata__ has no 'kind' (expected an attnlab model file)");
  m.config = st.meta("config");
  ATTNLAB_CHECK(!m.config.empty(), "model file: __metadata__ has no 'config'");
  try {
    ATTNLAB_CHECK(json::parse(m.config).is_object(),
                  "model file: 'config' must be a JSON object, got ", m.config);
    const std::string v = st.meta("vocab", "[]");
    const json jv = json::parse(v);
    ATTNLAB_CHECK(jv.is_array(), "model file: 'vocab' must be a JSON array of strings");
    for (auto& s : jv) {
      ATTNLAB_CHECK(s.is_string(), "model file: 'vocab' entries must be strings, got ", s.dump());
      m.vocab.push_back(s.get<std::string>());
    }
  } catch (const json::exception& e) {
    throw Error(std::string("model file: bad JSON in config or vocab: ") + e.what());
  }
  for (auto& kv : st.metadata)
    if (kv.first != "kind" && kv.first != "config" && kv.first != "vocab")
      m.extra[kv.first] = kv.second;
  return m;
}

}  // namespace attnlab::io
