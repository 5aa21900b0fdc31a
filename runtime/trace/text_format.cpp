#include "runtime/trace/text_format.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <limits>

#include "runtime/trace/record_codec.h"

namespace streamcheck::trace_internal {
namespace {

// The text fields, from the one list of fields (record_fields.def), in the
// order the writer emits them; the parser looks keys up in the same table.
enum class FieldKind {
  kHex64, kDec64, kDec32, kHex32, kSigned32, kStringRef,
  kNodeOp, kCopyKind, kMemoryKind, kAsync, kText, kAccess, kDep, kFrame,
};

using R = TraceRecord;
using F = TraceRecordFields;  // where the scalar members are declared

struct TextField {
  std::string_view key;
  FieldKind kind;
  int order = 0;
  // The member, for the kinds that name one through it (the vectors and the
  // text are one field each).
  uint64_t F::*u64 = nullptr;
  uint32_t F::*u32 = nullptr;
  int32_t F::*i32 = nullptr;
  int32_t default_i32 = 0;
};

// `&R::member` has the type of the class that declares the member: the
// scalars' overloads take TraceRecordFields members; the rest (enums, the flag,
// the vectors, the text) are kinds of their own.
constexpr TextField MakeField(std::string_view key, FieldKind kind, int order, uint64_t F::*member) {
  return {key, kind, order, member};
}
constexpr TextField MakeField(std::string_view key, FieldKind kind, int order, uint32_t F::*member) {
  return {key, kind, order, nullptr, member};
}
constexpr TextField MakeField(std::string_view key, FieldKind kind, int order, int32_t F::*member) {
  return {key, kind, order, nullptr, nullptr, member, F{}.*member};  // device's default is -1
}
template <typename Member>
constexpr TextField MakeField(std::string_view key, FieldKind kind, int order, Member) {
  return {key, kind, order};
}

constexpr auto kFields = [] {
  std::array fields = {
#define STREAMCHECK_TRACE_FIELD(bit, member, key, text_order, text_kind, binary_kind) \
  MakeField(key, FieldKind::text_kind, text_order, &R::member),
#include "runtime/trace/record_fields.def"
  };
  std::sort(fields.begin(), fields.end(), [](const TextField& a, const TextField& b) { return a.order < b.order; });
  return fields;
}();
constexpr size_t kFieldCount = kFields.size();
static_assert([] {
  for (const TextField& f : kFields) {
    const bool scalar = f.kind == FieldKind::kHex64 || f.kind == FieldKind::kDec64 || f.kind == FieldKind::kDec32 ||
                        f.kind == FieldKind::kHex32 || f.kind == FieldKind::kSigned32 ||
                        f.kind == FieldKind::kStringRef;
    if (scalar && !f.u64 && !f.u32 && !f.i32) return false;
  }
  return true;
}(), "every scalar text field reaches its member");
static_assert(kFieldCount <= 64, "seen-field mask is 64 bits");

void AppendNumber(uint64_t v, int base, std::string* out) {
  char digits[24];
  if (base == 16) out->append("0x");
  auto result = std::to_chars(digits, digits + sizeof digits, v, base);
  out->append(digits, result.ptr);
}
void AppendSigned(int64_t v, std::string* out) {
  char digits[24];
  auto result = std::to_chars(digits, digits + sizeof digits, v);
  out->append(digits, result.ptr);
}

void AppendStringRef(StringId id, const StringNames& names, std::string* out) {
  if (const std::string* text = names.LiteralFor(id)) {
    AppendQuoted(*text, out);
  } else {
    AppendNumber(id, 10, out);
  }
}

// Appends " key=" and the value of one field, or nothing when it is at its default.
void AppendField(const TextField& f, const TraceRecord& r, const StringNames& names,
                 std::string* out) {
  auto key = [&] {
    out->push_back(' ');
    out->append(f.key);
    out->push_back('=');
  };
  switch (f.kind) {
    case FieldKind::kHex64:
    case FieldKind::kDec64:
      if (r.*f.u64 != 0) {
        key();
        AppendNumber(r.*f.u64, f.kind == FieldKind::kHex64 ? 16 : 10, out);
      }
      break;
    case FieldKind::kDec32:
    case FieldKind::kHex32:
      if (r.*f.u32 != 0) {
        key();
        AppendNumber(r.*f.u32, f.kind == FieldKind::kHex32 ? 16 : 10, out);
      }
      break;
    case FieldKind::kSigned32:
      if (r.*f.i32 != f.default_i32) {
        key();
        AppendSigned(r.*f.i32, out);
      }
      break;
    case FieldKind::kStringRef:
      if (r.*f.u32 != 0) {
        key();
        AppendStringRef(r.*f.u32, names, out);
      }
      break;
    case FieldKind::kNodeOp:
      if (r.node_op != OpCode::kInvalid) {
        key();
        out->append(OpCodeName(r.node_op));
      }
      break;
    case FieldKind::kCopyKind:
      if (r.copy_kind != CopyKind::kDefault) {
        key();
        out->append(CopyKindName(r.copy_kind));
      }
      break;
    case FieldKind::kMemoryKind:
      if (r.memory_kind != MemoryKind::kDevice) {
        key();
        out->append(MemoryKindName(r.memory_kind));
      }
      break;
    case FieldKind::kAsync:
      if (r.is_async) {
        key();
        out->append("true");
      }
      break;
    case FieldKind::kText:
      if (!r.text.empty()) {
        key();
        AppendQuoted(r.text, out);
      }
      break;
    case FieldKind::kAccess:
      for (const MemoryAccess& a : r.accesses) {
        key();
        AppendNumber(a.addr, 16, out);
        out->push_back('+');
        AppendNumber(a.size, 10, out);
        out->push_back(':');
        out->append(AccessModeName(a.mode));
        if (a.certainty != AccessCertainty::kExact) {
          out->push_back(':');
          out->append(AccessCertaintyName(a.certainty));
        }
      }
      break;
    case FieldKind::kDep:
      for (Handle d : r.deps) {
        key();
        AppendNumber(d, 16, out);
      }
      break;
    case FieldKind::kFrame:
      for (const StackFrame& fr : r.frames) {
        // function[:file[:line[:pc]]], trailing zero parts left out
        key();
        AppendStringRef(fr.function, names, out);
        if (fr.file == 0 && fr.line == 0 && fr.pc == 0) continue;
        out->push_back(':');
        AppendStringRef(fr.file, names, out);
        if (fr.line == 0 && fr.pc == 0) continue;
        out->push_back(':');
        AppendNumber(fr.line, 10, out);
        if (fr.pc == 0) continue;
        out->push_back(':');
        AppendNumber(fr.pc, 16, out);
      }
      break;
  }
}

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

void StringNames::Define(StringId id, const std::string& text) {
  if (id == 0) return;  // 0 means "no string": never a literal's target
  text_of_[id] = text;
  id_of_.try_emplace(text, id);
  if (id > max_id_) max_id_ = id;
}

StringId StringNames::IdOf(std::string_view text) const {
  auto it = id_of_.find(std::string(text));
  return it == id_of_.end() ? 0 : it->second;
}

const std::string* StringNames::LiteralFor(StringId id) const {
  auto it = text_of_.find(id);
  if (it == text_of_.end()) return nullptr;
  return IdOf(it->second) == id ? &it->second : nullptr;
}

void AppendQuoted(std::string_view text, std::string* out) {
  static constexpr char kHex[] = "0123456789abcdef";
  out->push_back('"');
  for (char c : text) {
    auto u = static_cast<unsigned char>(c);
    switch (c) {
      case '"': out->append("\\\""); break;
      case '\\': out->append("\\\\"); break;
      case '\n': out->append("\\n"); break;
      case '\t': out->append("\\t"); break;
      case '\r': out->append("\\r"); break;
      default:
        if (u < 0x20 || u == 0x7f) {
          out->append("\\x");
          out->push_back(kHex[u >> 4]);
          out->push_back(kHex[u & 15]);
        } else {
          out->push_back(c);  // bytes >= 0x80 pass through (UTF-8 names stay readable)
        }
    }
  }
  out->push_back('"');
}

void FormatRecordLine(const TraceRecord& record, StringNames* names, std::string* out) {
  std::string_view op = OpCodeName(record.op);
  if (op.empty()) {
    out->append("invalid");  // kInvalid cannot be read back; only a bug produces it
  } else {
    out->append(op);
  }
  for (const TextField& f : kFields) AppendField(f, record, *names, out);
  out->push_back('\n');
  if (record.op == OpCode::kDefineString) names->Define(record.id, record.text);
}

namespace {

class LineParser {
 public:
  LineParser(std::string_view line, StringNames* names, std::vector<TraceRecord>* out,
             TextParseError* error)
      : line_(line), names_(names), out_(out), error_(error) {}

  bool Parse() {
    const size_t first_output = out_->size();
    if (!ParseRecord()) {
      out_->resize(first_output);
      return false;
    }
    return true;
  }

 private:
  bool ParseRecord() {
    SkipSpace();
    if (AtEndOfRecord()) return true;  // blank or comment line
    size_t op_pos = pos_;
    std::string_view op_name = Identifier();
    TraceRecord record;
    record.op = OpCodeFromName(op_name);
    if (record.op == OpCode::kInvalid) {
      return Fail(op_pos, op_name.empty() ? "expected an operation name"
                                          : "unknown operation '" + std::string(op_name) + "'");
    }
    uint64_t seen = 0;
    while (true) {
      if (!AtFieldBoundary()) return Fail(pos_, "expected a space before the next field");
      SkipSpace();
      if (AtEndOfRecord()) break;
      size_t key_pos = pos_;
      std::string_view key = Identifier();
      const TextField* field = FindField(key);
      if (field == nullptr) {
        return Fail(key_pos, key.empty() ? "expected a field name"
                                         : "unknown field '" + std::string(key) + "'");
      }
      bool repeated = field->kind == FieldKind::kAccess || field->kind == FieldKind::kDep ||
                      field->kind == FieldKind::kFrame;
      uint64_t bit = uint64_t{1} << (field - kFields.data());
      if (!repeated && (seen & bit)) {
        return Fail(key_pos, "field '" + std::string(key) + "' given twice");
      }
      seen |= bit;
      if (!Expect('=')) return false;
      if (!ParseValue(*field, &record)) return false;
    }
    if (record.op == OpCode::kDefineString) names_->Define(record.id, record.text);
    out_->push_back(std::move(record));
    return true;
  }

  bool ParseValue(const TextField& f, TraceRecord* r) {
    uint64_t u = 0;
    int64_t s = 0;
    switch (f.kind) {
      case FieldKind::kHex64:
      case FieldKind::kDec64:
        return Unsigned(std::numeric_limits<uint64_t>::max(), &((*r).*f.u64));
      case FieldKind::kDec32:
      case FieldKind::kHex32:
        if (!Unsigned(std::numeric_limits<uint32_t>::max(), &u)) return false;
        (*r).*f.u32 = static_cast<uint32_t>(u);
        return true;
      case FieldKind::kSigned32:
        if (!Signed(&s)) return false;
        (*r).*f.i32 = static_cast<int32_t>(s);
        return true;
      case FieldKind::kStringRef:
        return StringRef(&((*r).*f.u32));
      case FieldKind::kNodeOp: {
        size_t at = pos_;
        std::string_view name = Identifier();
        r->node_op = OpCodeFromName(name);
        if (r->node_op == OpCode::kInvalid) {
          return Fail(at, "unknown operation '" + std::string(name) + "'");
        }
        return true;
      }
      case FieldKind::kCopyKind: return EnumName(CopyKindFromName, &r->copy_kind, "copy kind");
      case FieldKind::kMemoryKind:
        return EnumName(MemoryKindFromName, &r->memory_kind, "memory kind");
      case FieldKind::kAsync: {
        size_t at = pos_;
        std::string_view word = Identifier();
        if (word == "true" || word == "1") {
          r->is_async = true;
        } else if (word == "false" || word == "0") {
          r->is_async = false;
        } else {
          return Fail(at, "expected true or false");
        }
        return true;
      }
      case FieldKind::kText: return Quoted(&r->text);
      case FieldKind::kAccess: {
        const size_t at = pos_;
        MemoryAccess a;
        if (!Unsigned(std::numeric_limits<uint64_t>::max(), &a.addr) || !Expect('+') ||
            !Unsigned(std::numeric_limits<uint64_t>::max(), &a.size)) {
          return false;
        }
        if (pos_ < line_.size() && line_[pos_] == ':') {
          ++pos_;
          if (!EnumName(AccessModeFromName, &a.mode, "access mode")) return false;
        }
        if (pos_ < line_.size() && line_[pos_] == ':') {
          ++pos_;
          if (!EnumName(AccessCertaintyFromName, &a.certainty, "access certainty")) return false;
        }
        if (WrapsAddressSpace(a)) return Fail(at, "access wraps past 2^64");
        r->accesses.push_back(a);
        return true;
      }
      case FieldKind::kDep:
        if (!Unsigned(std::numeric_limits<uint64_t>::max(), &u)) return false;
        r->deps.push_back(u);
        return true;
      case FieldKind::kFrame: {
        // function[:file[:line[:pc]]]
        StackFrame frame;
        if (!StringRef(&frame.function)) return false;
        if (Accept(':')) {
          if (!StringRef(&frame.file)) return false;
          if (Accept(':')) {
            if (!Unsigned(std::numeric_limits<uint32_t>::max(), &u)) return false;
            frame.line = static_cast<uint32_t>(u);
            if (Accept(':') && !Unsigned(std::numeric_limits<uint64_t>::max(), &frame.pc)) {
              return false;
            }
          }
        }
        r->frames.push_back(frame);
        return true;
      }
    }
    return false;
  }

  template <typename Enum>
  bool EnumName(bool (*from_name)(std::string_view, Enum*), Enum* value, const char* what) {
    size_t at = pos_;
    std::string_view name = Identifier();
    if (!from_name(name, value)) {
      return Fail(at, "unknown " + std::string(what) + " '" + std::string(name) + "'");
    }
    return true;
  }

  // A decimal or 0x-prefixed hexadecimal number no larger than `max`.
  bool Unsigned(uint64_t max, uint64_t* value) {
    size_t at = pos_;
    int base = 10;
    if (line_.substr(pos_, 2) == "0x" || line_.substr(pos_, 2) == "0X") {
      base = 16;
      pos_ += 2;
    }
    const char* begin = line_.data() + pos_;
    auto [end, ec] = std::from_chars(begin, line_.data() + line_.size(), *value, base);
    if (ec == std::errc::result_out_of_range || (ec == std::errc() && *value > max)) {
      return Fail(at, "number out of range");
    }
    if (ec != std::errc() || end == begin) return Fail(at, "expected a number");
    pos_ += end - begin;
    return true;
  }

  bool Signed(int64_t* value) {
    size_t at = pos_;
    bool negative = Accept('-');
    uint64_t magnitude = 0;
    if (!Unsigned(uint64_t{1} << 31, &magnitude)) return false;
    if (!negative && magnitude > uint64_t{std::numeric_limits<int32_t>::max()}) {
      return Fail(at, "number out of range");
    }
    *value = negative ? -static_cast<int64_t>(magnitude) : static_cast<int64_t>(magnitude);
    return true;
  }

  bool StringRef(StringId* id) {
    if (pos_ >= line_.size() || line_[pos_] != '"') {
      uint64_t u = 0;
      if (!Unsigned(std::numeric_limits<uint32_t>::max(), &u)) return false;
      *id = static_cast<StringId>(u);
      return true;
    }
    size_t at = pos_;
    std::string text;
    if (!Quoted(&text)) return false;
    *id = names_->IdOf(text);
    if (*id != 0) return true;
    // A literal never defined: define it here, as the tracer would have.
    *id = names_->NextFreeId();
    if (*id == 0) return Fail(at, "no string id left for this literal");
    TraceRecord define = StringDefinition(*id, std::move(text));
    names_->Define(define.id, define.text);
    out_->push_back(std::move(define));
    return true;
  }

  bool Quoted(std::string* text) {
    if (!Expect('"')) return false;
    text->clear();
    while (true) {
      if (pos_ >= line_.size()) return Fail(pos_, "unterminated string");
      char c = line_[pos_++];
      if (c == '"') return true;
      if (c != '\\') {
        text->push_back(c);
        continue;
      }
      size_t escape_pos = pos_ - 1;
      if (pos_ >= line_.size()) return Fail(escape_pos, "unterminated string");
      char e = line_[pos_++];
      switch (e) {
        case '"': text->push_back('"'); break;
        case '\\': text->push_back('\\'); break;
        case 'n': text->push_back('\n'); break;
        case 't': text->push_back('\t'); break;
        case 'r': text->push_back('\r'); break;
        case '0': text->push_back('\0'); break;
        case 'x': {
          int hi = pos_ < line_.size() ? HexDigit(line_[pos_]) : -1;
          int lo = pos_ + 1 < line_.size() ? HexDigit(line_[pos_ + 1]) : -1;
          if (hi < 0 || lo < 0) return Fail(escape_pos, "\\x needs two hex digits");
          text->push_back(static_cast<char>(hi * 16 + lo));
          pos_ += 2;
          break;
        }
        default:
          return Fail(escape_pos, std::string("unknown escape \\") + e);
      }
    }
  }

  std::string_view Identifier() {
    size_t start = pos_;
    while (pos_ < line_.size()) {
      char c = line_[pos_];
      bool word = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                  c == '_';
      if (!word) break;
      ++pos_;
    }
    return line_.substr(start, pos_ - start);
  }

  static const TextField* FindField(std::string_view key) {
    for (const TextField& f : kFields) {
      if (f.key == key) return &f;
    }
    return nullptr;
  }

  void SkipSpace() {
    while (pos_ < line_.size() && (line_[pos_] == ' ' || line_[pos_] == '\t')) ++pos_;
  }
  bool AtEndOfRecord() const { return pos_ >= line_.size() || line_[pos_] == '#'; }
  bool AtFieldBoundary() const {
    return AtEndOfRecord() || line_[pos_] == ' ' || line_[pos_] == '\t';
  }
  bool Accept(char c) {
    if (pos_ < line_.size() && line_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  bool Expect(char c) {
    if (Accept(c)) return true;
    return Fail(pos_, std::string("expected '") + c + "'");
  }
  bool Fail(size_t pos, std::string message) {
    error_->column = pos + 1;
    error_->message = std::move(message);
    return false;
  }

  std::string_view line_;
  size_t pos_ = 0;
  StringNames* names_;
  std::vector<TraceRecord>* out_;
  TextParseError* error_;
};

}  // namespace

bool ParseRecordLine(std::string_view line, StringNames* names, std::vector<TraceRecord>* out,
                     TextParseError* error) {
  return LineParser(line, names, out, error).Parse();
}

}  // namespace streamcheck::trace_internal
