#include "runtime/trace/record_codec.h"

#include <array>
#include <bit>
#include <cstdio>
#include <cstring>
#include <limits>

#include "runtime/trace/binary_format.h"
#include "runtime/trace/varint.h"

namespace streamcheck::trace_internal {
namespace {

constexpr uint64_t Bit(FieldBit b) { return uint64_t{1} << b; }

// Which opcode bytes name an op (a table: decoding checks every record's).
const std::array<bool, 256> kValidOpCode = [] {
  std::array<bool, 256> valid{};
  for (size_t v = 0; v < static_cast<size_t>(OpCode::kMaxOpCode); ++v)
    valid[v] = !OpCodeName(static_cast<OpCode>(v)).empty();
  return valid;
}();

bool IsValidOpCode(uint64_t v) { return v < kValidOpCode.size() && kValidOpCode[v]; }

// A default record: a field is present where a record differs from it.
const TraceRecord kDefaultRecord{};

uint64_t PresenceMask(const TraceRecord& r) {
  uint64_t m = 0;
#define STREAMCHECK_TRACE_FIELD(bit, member, key, text_order, text_kind, binary_kind) \
  m |= r.member != kDefaultRecord.member ? Bit(bit) : 0;
#include "runtime/trace/record_fields.def"
  return m;
}

// Failures build their message out of line, so that the reader's hot methods
// stay small enough to inline and its cursor can live in a register.
[[gnu::cold, gnu::noinline]] bool FailField(std::string* problem, const char* field, const char* what) {
  *problem = std::string(field) + ": " + what;
  return false;
}
[[gnu::cold, gnu::noinline]] bool FailCount(std::string* problem, const char* field, uint64_t count,
                                            size_t left) {
  *problem = std::string(field) + " count " + std::to_string(count) + " exceeds the " +
             std::to_string(left) + " bytes left in the block";
  return false;
}

// Reads the fields of the binary form with range checks; every failure
// leaves a description in problem_. Works on a copy of the cursor (the
// caller's is updated once, at the end of a record). Its methods are forced
// inline: GCC kept U32 and Count out of line (a call, and the cursor spilled
// to memory, for most fields of every record).
class FieldReader {
 public:
  FieldReader(const uint8_t* p, const uint8_t* end, std::string* problem)
      : p_(p), end_(end), problem_(problem) {}

  [[gnu::always_inline]] bool U64(const char* field, uint64_t* v) {
    if (ReadVarint(&p_, end_, v)) [[likely]] return true;
    return Fail(field, "truncated or overlong varint");
  }
  // For fields that are rarely one or two bytes (addresses).
  [[gnu::always_inline]] bool WideU64(const char* field, uint64_t* v) {
    if (ReadWideVarint(&p_, end_, v)) [[likely]] return true;
    return Fail(field, "truncated or overlong varint");
  }
  [[gnu::always_inline]] bool U32(const char* field, uint32_t* v) {
    uint64_t x = 0;
    if (!U64(field, &x)) return false;
    if (x > std::numeric_limits<uint32_t>::max()) return Fail(field, "value out of range");
    *v = static_cast<uint32_t>(x);
    return true;
  }
  [[gnu::always_inline]] bool I32(const char* field, int32_t* v) {
    uint64_t x = 0;
    if (!U64(field, &x)) return false;
    int64_t s = ZigZagDecode(x);
    if (s < std::numeric_limits<int32_t>::min() || s > std::numeric_limits<int32_t>::max()) {
      return Fail(field, "value out of range");
    }
    *v = static_cast<int32_t>(s);
    return true;
  }
  [[gnu::always_inline]] bool Byte(const char* field, uint8_t* v) {
    if (p_ == end_) return Fail(field, "truncated");
    *v = *p_++;
    return true;
  }
  // A count of elements of at least `min_bytes` each, checked against what is left.
  [[gnu::always_inline]] bool Count(const char* field, size_t min_bytes, size_t* n) {
    uint64_t x = 0;
    if (!U64(field, &x)) return false;
    if (x == 0) return Fail(field, "present with zero elements");
    if (x > static_cast<uint64_t>(end_ - p_) / min_bytes) return FailCount(problem_, field, x, left());
    *n = static_cast<size_t>(x);
    return true;
  }
  bool Fail(const char* field, const char* what) { return FailField(problem_, field, what); }
  const uint8_t* position() const { return p_; }
  void Skip(size_t n) { p_ += n; }
  size_t left() const { return static_cast<size_t>(end_ - p_); }

 private:
  const uint8_t* p_;
  const uint8_t* end_;
  std::string* problem_;
};

// The fields of a kernel launch, the commonest record (record_fields.def):
// decoded in line, in bit order, before the per-field switch, whose indirect
// jump per field cost more than the field itself.
constexpr uint32_t kLeadingFieldCount = kBitAccesses + 1;
constexpr uint64_t kLeadingFields = (uint64_t{1} << kLeadingFieldCount) - 1;

// Decodes one field by its binary kind (record_fields.def). The names are
// those of the error messages.
class FieldDecoder {
 public:
  FieldDecoder(FieldReader& in, BlockCodecState* state, std::string* problem)
      : in_(in), state_(state), problem_(problem) {}

  [[gnu::always_inline]] bool Varint(const char* field, uint64_t* v) { return in_.U64(field, v); }
  [[gnu::always_inline]] bool Varint(const char* field, uint32_t* v) { return in_.U32(field, v); }
  [[gnu::always_inline]] bool Signed(const char* field, int32_t* v) { return in_.I32(field, v); }
  [[gnu::always_inline]] bool TimestampDelta(const char*, uint64_t* v) {
    uint64_t delta = 0;
    if (!in_.U64("timestamp", &delta)) return false;
    *v = state_->previous_timestamp + static_cast<uint64_t>(ZigZagDecode(delta));
    state_->previous_timestamp = *v;
    return true;
  }
  [[gnu::always_inline]] bool Flag(const char*, bool* v) {
    *v = true;  // presence says it
    return true;
  }
  bool CopyKindByte(const char*, CopyKind* v) { return EnumByte("copy kind", CopyKindName, v); }
  bool MemoryKindByte(const char*, MemoryKind* v) { return EnumByte("memory kind", MemoryKindName, v); }
  bool OpCodeByte(const char*, OpCode* v) {
    uint8_t byte = 0;
    if (!in_.Byte("node_op", &byte)) return false;
    if (!IsValidOpCode(byte)) {
      *problem_ = "unknown node_op opcode " + std::to_string(byte);
      return false;
    }
    *v = static_cast<OpCode>(byte);
    return true;
  }
  bool Text(const char*, std::string* v) {
    size_t n = 0;
    if (!in_.Count("text length", 1, &n)) return false;
    v->assign(reinterpret_cast<const char*>(in_.position()), n);
    in_.Skip(n);
    return true;
  }
  // count, then (addr varint, size varint, mode u8 | certainty << kCertaintyShift) each.
  [[gnu::always_inline]] bool Accesses(const char*, std::vector<MemoryAccess>* accesses) {
    size_t n = 0;
    if (!in_.Count("accesses", 3, &n)) return false;
    // Decoded in place: resize() from empty was an out-of-line call per
    // record, push_back a copy; emplace_back's common path is inline.
    accesses->reserve(n);  // Clear() kept the capacity: usually nothing to do
    for (size_t i = 0; i < n; ++i) {
      MemoryAccess& a = accesses->emplace_back();
      uint8_t byte = 0;
      if (!in_.WideU64("access address", &a.addr) || !in_.U64("access size", &a.size) ||
          !in_.Byte("access mode", &byte)) {
        return false;
      }
      const uint8_t certainty = byte >> kCertaintyShift, mode = byte & ((1u << kCertaintyShift) - 1);
      if (mode < static_cast<uint8_t>(AccessMode::kRead) || mode > static_cast<uint8_t>(AccessMode::kUnknown) ||
          certainty > static_cast<uint8_t>(AccessCertainty::kNone)) [[unlikely]] {
        *problem_ = "unknown access mode " + std::to_string(byte);
        return false;
      }
      a.mode = static_cast<AccessMode>(mode);
      a.certainty = static_cast<AccessCertainty>(certainty);
      if (WrapsAddressSpace(a)) [[unlikely]] {
        *problem_ = "access wraps past 2^64";
        return false;
      }
    }
    return true;
  }
  bool Frames(const char*, std::vector<StackFrame>* frames) {
    size_t n = 0;
    if (!in_.Count("frames", 4, &n)) return false;
    frames->resize(n);
    for (StackFrame& f : *frames) {
      if (!in_.U32("frame function", &f.function) || !in_.U32("frame file", &f.file) ||
          !in_.U32("frame line", &f.line) || !in_.U64("frame pc", &f.pc)) {
        return false;
      }
    }
    return true;
  }
  bool Deps(const char*, std::vector<Handle>* deps) {
    size_t n = 0;
    if (!in_.Count("deps", 1, &n)) return false;
    deps->resize(n);
    for (Handle& d : *deps) {
      if (!in_.U64("dep", &d)) return false;
    }
    return true;
  }

 private:
  template <typename Enum>
  bool EnumByte(const char* what, std::string_view (*name_of)(Enum), Enum* v) {
    uint8_t byte = 0;
    if (!in_.Byte(what, &byte)) return false;
    if (name_of(static_cast<Enum>(byte)).empty()) {
      *problem_ = std::string("unknown ") + what + " " + std::to_string(byte);
      return false;
    }
    *v = static_cast<Enum>(byte);
    return true;
  }

  FieldReader& in_;
  BlockCodecState* state_;
  std::string* problem_;
};

// The most bytes EncodeInto writes: the op byte, a varint for the mask and
// for every field, and what the variable-length fields hold.
size_t EncodedSizeBound(const TraceRecord& r) {
  constexpr size_t kVarint = kMaxVarintBytes;
  return 1 + kVarint * (1 + kFieldBitCount) + r.accesses.size() * (2 * kVarint + 1) +
         r.frames.size() * 4 * kVarint + r.deps.size() * kVarint + r.text.size();
}

// Encodes one field by its binary kind (record_fields.def) at a raw cursor,
// not a checked append per byte (the trace writer encodes every record of a
// traced program).
class FieldEncoder {
 public:
  FieldEncoder(uint8_t* p, BlockCodecState* state) : p_(p), state_(state) {}
  uint8_t* position() const { return p_; }

  void Varint(uint64_t v) { p_ = PutVarint(v, p_); }
  void Signed(int32_t v) { p_ = PutVarint(ZigZagEncode(v), p_); }
  void TimestampDelta(uint64_t v) {
    Signed64(static_cast<int64_t>(v - state_->previous_timestamp));
    state_->previous_timestamp = v;
  }
  void Flag(bool) {}  // presence says it
  void CopyKindByte(CopyKind v) { Byte(v); }
  void MemoryKindByte(MemoryKind v) { Byte(v); }
  void OpCodeByte(OpCode v) { Byte(v); }
  void Text(const std::string& v) {
    Varint(v.size());
    std::memcpy(p_, v.data(), v.size());
    p_ += v.size();
  }
  void Accesses(const std::vector<MemoryAccess>& accesses) {
    Varint(accesses.size());
    for (const MemoryAccess& a : accesses) {
      Varint(a.addr);
      Varint(a.size);
      Byte(static_cast<uint8_t>(a.mode) | static_cast<uint8_t>(a.certainty) << kCertaintyShift);
    }
  }
  void Frames(const std::vector<StackFrame>& frames) {
    Varint(frames.size());
    for (const StackFrame& f : frames) {
      Varint(f.function);
      Varint(f.file);
      Varint(f.line);
      Varint(f.pc);
    }
  }
  void Deps(const std::vector<Handle>& deps) {
    Varint(deps.size());
    for (Handle d : deps) Varint(d);
  }
  template <typename T>
  void Byte(T v) {
    *p_++ = static_cast<uint8_t>(v);
  }

 private:
  void Signed64(int64_t v) { p_ = PutVarint(ZigZagEncode(v), p_); }
  uint8_t* p_;
  BlockCodecState* state_;
};

// Writes r's encoding at p, which has room for EncodedSizeBound(r) bytes, and
// returns its end.
uint8_t* EncodeInto(const TraceRecord& r, BlockCodecState* state, uint8_t* p) {
  FieldEncoder out(p, state);
  const uint64_t mask = PresenceMask(r);
  out.Byte(r.op);
  out.Varint(mask);
  for (uint64_t m = mask; m != 0; m &= m - 1) {
    switch (static_cast<FieldBit>(std::countr_zero(m))) {
#define STREAMCHECK_TRACE_FIELD(bit, member, key, text_order, text_kind, binary_kind) \
  case bit:                                                                          \
    out.binary_kind(r.member);                                                       \
    break;
#include "runtime/trace/record_fields.def"
      case kFieldBitCount: break;
    }
  }
  return out.position();
}

}  // namespace

bool IsWritableRecord(const TraceRecord& r, std::string* problem) {
  auto fail = [problem](std::string what, int value) {
    *problem = "cannot write a record with " + what + " " + std::to_string(value);
    return false;
  };
  if (!IsValidOpCode(static_cast<uint8_t>(r.op))) return fail("opcode", static_cast<int>(r.op));
  if (r.node_op != OpCode::kInvalid && !IsValidOpCode(static_cast<uint8_t>(r.node_op))) {
    return fail("node_op", static_cast<int>(r.node_op));
  }
  if (MemoryKindName(r.memory_kind).empty()) {
    return fail("memory kind", static_cast<int>(r.memory_kind));
  }
  if (CopyKindName(r.copy_kind).empty()) return fail("copy kind", static_cast<int>(r.copy_kind));
  for (const MemoryAccess& a : r.accesses) {
    if (AccessModeName(a.mode).empty()) return fail("access mode", static_cast<int>(a.mode));
    if (WrapsAddressSpace(a)) {
      *problem = "cannot write an access that wraps past 2^64";
      return false;
    }
    if (a.certainty != AccessCertainty::kExact && AccessCertaintyName(a.certainty).empty())
      return fail("access certainty", static_cast<int>(a.certainty));
  }
  return true;
}

void EncodeRecord(const TraceRecord& r, BlockCodecState* state, std::string* out) {
  const size_t start = out->size();
  out->resize(start + EncodedSizeBound(r));
  uint8_t* const begin = reinterpret_cast<uint8_t*>(out->data()) + start;
  out->resize(start + static_cast<size_t>(EncodeInto(r, state, begin) - begin));
}

bool DecodeRecord(const uint8_t** p, const uint8_t* end, BlockCodecState* state,
                  TraceRecord* out, std::string* problem) {
  FieldReader in(*p, end, problem);
  out->Clear();
  uint8_t op = 0;
  if (!in.Byte("opcode", &op)) return false;
  if (!IsValidOpCode(op)) {
    *problem = "unknown opcode " + std::to_string(op);
    return false;
  }
  out->op = static_cast<OpCode>(op);
  uint64_t mask = 0;
  if (!in.U64("presence mask", &mask)) return false;
  if (mask & ~kKnownFieldMask) {
    *problem = "unknown field bits in presence mask 0x" + [&] {
      char hex[24];
      std::snprintf(hex, sizeof hex, "%llx", static_cast<unsigned long long>(mask));
      return std::string(hex);
    }();
    return false;
  }
  FieldDecoder fields(in, state, problem);
  // The leading fields in line, in bit order (if constexpr: each expands to
  // one test of the mask); the others through the switch.
#define STREAMCHECK_TRACE_FIELD(bit, member, key, text_order, text_kind, binary_kind) \
  if constexpr (bit < kLeadingFieldCount) {                                          \
    if ((mask & Bit(bit)) && !fields.binary_kind(key, &out->member)) return false;   \
  }
#include "runtime/trace/record_fields.def"
  mask &= ~kLeadingFields;
  for (uint64_t m = mask; m != 0; m &= m - 1) {
    bool ok = true;
    switch (static_cast<FieldBit>(std::countr_zero(m))) {
#define STREAMCHECK_TRACE_FIELD(bit, member, key, text_order, text_kind, binary_kind) \
  case bit:                                                                          \
    if constexpr (bit >= kLeadingFieldCount) ok = fields.binary_kind(key, &out->member); \
    break;
#include "runtime/trace/record_fields.def"
      case kFieldBitCount: break;
    }
    if (!ok) return false;
  }
  *p = in.position();
  return true;
}

}  // namespace streamcheck::trace_internal
