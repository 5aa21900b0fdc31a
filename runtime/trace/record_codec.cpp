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

uint64_t PresenceMask(const TraceRecord& r) {
  uint64_t m = 0;
  auto set = [&m](bool present, FieldBit b) { m |= present ? Bit(b) : 0; };
  set(r.thread != 0, kBitThread);
  set(r.timestamp_ns != 0, kBitTimestamp);
  set(r.stream != 0, kBitStream);
  set(r.name != 0, kBitName);
  set(r.api != 0, kBitApi);
  set(r.stack != 0, kBitStack);
  set(!r.accesses.empty(), kBitAccesses);
  set(r.dst != 0, kBitDst);
  set(r.size != 0, kBitSize);
  set(r.event != 0, kBitEvent);
  set(r.src != 0, kBitSrc);
  set(r.is_async, kBitIsAsync);
  set(r.copy_kind != CopyKind::kDefault, kBitCopyKind);
  set(r.memory_kind != MemoryKind::kDevice, kBitMemoryKind);
  set(r.device != -1, kBitDevice);
  set(r.result != 0, kBitResult);
  set(r.flags != 0, kBitFlags);
  set(r.priority != 0, kBitPriority);
  set(r.framework_op != 0, kBitFrameworkOp);
  set(r.id != 0, kBitId);
  set(!r.text.empty(), kBitText);
  set(!r.frames.empty(), kBitFrames);
  set(!r.deps.empty(), kBitDeps);
  set(r.graph != 0, kBitGraph);
  set(r.graph_exec != 0, kBitGraphExec);
  set(r.node != 0, kBitNode);
  set(r.node_op != OpCode::kInvalid, kBitNodeOp);
  set(r.event2 != 0, kBitEvent2);
  set(r.height != 0, kBitHeight);
  set(r.dst_pitch != 0, kBitDstPitch);
  set(r.src_pitch != 0, kBitSrcPitch);
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

constexpr uint64_t kLeadingFields = Bit(kBitThread) | Bit(kBitTimestamp) | Bit(kBitStream) |
                                   Bit(kBitName) | Bit(kBitApi) | Bit(kBitStack) | Bit(kBitAccesses);

// count, then (addr varint, size varint, mode u8) each.
[[gnu::always_inline]] inline bool DecodeAccesses(FieldReader& in, std::vector<MemoryAccess>* accesses,
                                                  std::string* problem) {
  size_t n = 0;
  if (!in.Count("accesses", 3, &n)) return false;
  // Decoded in place: resize() from empty was an out-of-line call per
  // record, push_back a copy; emplace_back's common path is inline.
  accesses->reserve(n);  // Clear() kept the capacity: usually nothing to do
  for (size_t i = 0; i < n; ++i) {
    MemoryAccess& a = accesses->emplace_back();
    uint8_t byte = 0;
    if (!in.WideU64("access address", &a.addr) || !in.U64("access size", &a.size) ||
        !in.Byte("access mode", &byte)) {
      return false;
    }
    const uint8_t certainty = byte >> kCertaintyShift, mode = byte & ((1u << kCertaintyShift) - 1);
    if (mode < static_cast<uint8_t>(AccessMode::kRead) || mode > static_cast<uint8_t>(AccessMode::kUnknown) ||
        certainty > static_cast<uint8_t>(AccessCertainty::kNone)) [[unlikely]] {
      *problem = "unknown access mode " + std::to_string(byte);
      return false;
    }
    a.mode = static_cast<AccessMode>(mode);
    a.certainty = static_cast<AccessCertainty>(certainty);
  }
  return true;
}

// The most bytes EncodeInto writes: the op byte, a varint for the mask and
// for every field, and what the variable-length fields hold.
size_t EncodedSizeBound(const TraceRecord& r) {
  constexpr size_t kVarint = kMaxVarintBytes;
  return 1 + kVarint * (1 + kFieldBitCount) + r.accesses.size() * (2 * kVarint + 1) +
         r.frames.size() * 4 * kVarint + r.deps.size() * kVarint + r.text.size();
}

// Writes r's encoding at p, which has room for EncodedSizeBound(r) bytes, and
// returns its end.
uint8_t* EncodeInto(const TraceRecord& r, BlockCodecState* state, uint8_t* p) {
  // A raw cursor, not a checked append per byte (the trace writer encodes
  // every record of a traced program).
  auto put = [&p](uint64_t v) { p = PutVarint(v, p); };
  auto put_signed = [&p](int64_t v) { p = PutVarint(ZigZagEncode(v), p); };
  auto put_byte = [&p](auto v) { *p++ = static_cast<uint8_t>(v); };
  const uint64_t mask = PresenceMask(r);
  put_byte(r.op);
  put(mask);
  for (uint64_t m = mask; m != 0; m &= m - 1) {
    switch (static_cast<FieldBit>(std::countr_zero(m))) {
      case kBitThread: put(r.thread); break;
      case kBitTimestamp:
        put_signed(static_cast<int64_t>(r.timestamp_ns - state->previous_timestamp));
        state->previous_timestamp = r.timestamp_ns;
        break;
      case kBitStream: put(r.stream); break;
      case kBitName: put(r.name); break;
      case kBitApi: put(r.api); break;
      case kBitStack: put(r.stack); break;
      case kBitAccesses:
        put(r.accesses.size());
        for (const MemoryAccess& a : r.accesses) {
          put(a.addr);
          put(a.size);
          put_byte(static_cast<uint8_t>(a.mode) | static_cast<uint8_t>(a.certainty) << kCertaintyShift);
        }
        break;
      case kBitDst: put(r.dst); break;
      case kBitSize: put(r.size); break;
      case kBitEvent: put(r.event); break;
      case kBitSrc: put(r.src); break;
      case kBitIsAsync: break;
      case kBitCopyKind: put_byte(r.copy_kind); break;
      case kBitMemoryKind: put_byte(r.memory_kind); break;
      case kBitDevice: put_signed(r.device); break;
      case kBitResult: put_signed(r.result); break;
      case kBitFlags: put(r.flags); break;
      case kBitPriority: put_signed(r.priority); break;
      case kBitFrameworkOp: put(r.framework_op); break;
      case kBitId: put(r.id); break;
      case kBitText:
        put(r.text.size());
        std::memcpy(p, r.text.data(), r.text.size());
        p += r.text.size();
        break;
      case kBitFrames:
        put(r.frames.size());
        for (const StackFrame& f : r.frames) {
          put(f.function);
          put(f.file);
          put(f.line);
          put(f.pc);
        }
        break;
      case kBitDeps:
        put(r.deps.size());
        for (Handle d : r.deps) put(d);
        break;
      case kBitGraph: put(r.graph); break;
      case kBitGraphExec: put(r.graph_exec); break;
      case kBitNode: put(r.node); break;
      case kBitNodeOp: put_byte(r.node_op); break;
      case kBitEvent2: put(r.event2); break;
      case kBitHeight: put(r.height); break;
      case kBitDstPitch: put(r.dst_pitch); break;
      case kBitSrcPitch: put(r.src_pitch); break;
      case kFieldBitCount: break;
    }
  }
  return p;
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
  // The leading fields (the ones a kernel launch, the dominant record, has)
  // are decoded in line, in bit order, without the per-field switch below:
  // its indirect jump per field cost more than the field itself.
  if ((mask & Bit(kBitThread)) && !in.U32("thread", &out->thread)) return false;
  if (mask & Bit(kBitTimestamp)) {
    uint64_t delta = 0;
    if (!in.U64("timestamp", &delta)) return false;
    out->timestamp_ns = state->previous_timestamp + static_cast<uint64_t>(ZigZagDecode(delta));
    state->previous_timestamp = out->timestamp_ns;
  }
  if ((mask & Bit(kBitStream)) && !in.U64("stream", &out->stream)) return false;
  if ((mask & Bit(kBitName)) && !in.U32("name", &out->name)) return false;
  if ((mask & Bit(kBitApi)) && !in.U32("api", &out->api)) return false;
  if ((mask & Bit(kBitStack)) && !in.U32("stack", &out->stack)) return false;
  if ((mask & Bit(kBitAccesses)) && !DecodeAccesses(in, &out->accesses, problem)) return false;
  mask &= ~kLeadingFields;
  for (uint64_t m = mask; m != 0; m &= m - 1) {
    bool ok = true;
    uint8_t byte = 0;
    switch (static_cast<FieldBit>(std::countr_zero(m))) {
      case kBitThread:
      case kBitTimestamp:
      case kBitStream:
      case kBitName:
      case kBitApi:
      case kBitStack:
      case kBitAccesses: break;  // decoded above
      case kBitDst: ok = in.U64("dst", &out->dst); break;
      case kBitSize: ok = in.U64("size", &out->size); break;
      case kBitEvent: ok = in.U64("event", &out->event); break;
      case kBitSrc: ok = in.U64("src", &out->src); break;
      case kBitIsAsync: out->is_async = true; break;
      case kBitCopyKind:
        if (!in.Byte("copy kind", &byte)) return false;
        if (CopyKindName(static_cast<CopyKind>(byte)).empty()) {
          *problem = "unknown copy kind " + std::to_string(byte);
          return false;
        }
        out->copy_kind = static_cast<CopyKind>(byte);
        break;
      case kBitMemoryKind:
        if (!in.Byte("memory kind", &byte)) return false;
        if (MemoryKindName(static_cast<MemoryKind>(byte)).empty()) {
          *problem = "unknown memory kind " + std::to_string(byte);
          return false;
        }
        out->memory_kind = static_cast<MemoryKind>(byte);
        break;
      case kBitDevice: ok = in.I32("device", &out->device); break;
      case kBitResult: ok = in.I32("result", &out->result); break;
      case kBitFlags: ok = in.U32("flags", &out->flags); break;
      case kBitPriority: ok = in.I32("priority", &out->priority); break;
      case kBitFrameworkOp: ok = in.U32("framework_op", &out->framework_op); break;
      case kBitId: ok = in.U32("id", &out->id); break;
      case kBitText: {
        size_t n = 0;
        if (!in.Count("text length", 1, &n)) return false;
        out->text.assign(reinterpret_cast<const char*>(in.position()), n);
        in.Skip(n);
        break;
      }
      case kBitFrames: {
        size_t n = 0;
        if (!in.Count("frames", 4, &n)) return false;
        out->frames.resize(n);
        for (StackFrame& f : out->frames) {
          if (!in.U32("frame function", &f.function) || !in.U32("frame file", &f.file) ||
              !in.U32("frame line", &f.line) || !in.U64("frame pc", &f.pc)) {
            return false;
          }
        }
        break;
      }
      case kBitDeps: {
        size_t n = 0;
        if (!in.Count("deps", 1, &n)) return false;
        out->deps.resize(n);
        for (Handle& d : out->deps) {
          if (!in.U64("dep", &d)) return false;
        }
        break;
      }
      case kBitGraph: ok = in.U64("graph", &out->graph); break;
      case kBitGraphExec: ok = in.U64("graph_exec", &out->graph_exec); break;
      case kBitNode: ok = in.U64("node", &out->node); break;
      case kBitNodeOp:
        if (!in.Byte("node_op", &byte)) return false;
        if (!IsValidOpCode(byte)) {
          *problem = "unknown node_op opcode " + std::to_string(byte);
          return false;
        }
        out->node_op = static_cast<OpCode>(byte);
        break;
      case kBitEvent2: ok = in.U64("event2", &out->event2); break;
      case kBitHeight: ok = in.U64("height", &out->height); break;
      case kBitDstPitch: ok = in.U64("dst_pitch", &out->dst_pitch); break;
      case kBitSrcPitch: ok = in.U64("src_pitch", &out->src_pitch); break;
      case kFieldBitCount: break;
    }
    if (!ok) return false;
  }
  *p = in.position();
  return true;
}

}  // namespace streamcheck::trace_internal
