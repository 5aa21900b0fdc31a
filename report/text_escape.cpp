#include "report/text_escape.h"

namespace streamcheck::report {
namespace {

// The length of the valid UTF-8 sequence starting at text[i], or 0.
size_t Utf8SequenceLength(std::string_view text, size_t i) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char lead = byte(i);
  size_t n = 0;
  unsigned char low = 0x80, high = 0xbf;  // the allowed range of the second byte
  if (lead >= 0xc2 && lead <= 0xdf) n = 2;
  else if (lead >= 0xe0 && lead <= 0xef) {
    n = 3;
    if (lead == 0xe0) low = 0xa0;   // no overlong forms
    if (lead == 0xed) high = 0x9f;  // no surrogates
  } else if (lead >= 0xf0 && lead <= 0xf4) {
    n = 4;
    if (lead == 0xf0) low = 0x90;
    if (lead == 0xf4) high = 0x8f;  // nothing past U+10FFFF
  } else {
    return 0;
  }
  if (i + n > text.size()) return 0;
  if (byte(i + 1) < low || byte(i + 1) > high) return 0;
  for (size_t k = 2; k < n; ++k)
    if ((byte(i + k) & 0xc0) != 0x80) return 0;
  return n;
}

void EscapeInPlace(std::string* s) {
  for (unsigned char c : *s) {
    if (c < 0x20 || c >= 0x7f) {
      *s = EscapeControl(*s);
      return;
    }
  }
}

void EscapeStack(std::vector<ResolvedFrame>* stack) {
  for (ResolvedFrame& f : *stack) {
    EscapeInPlace(&f.function);
    EscapeInPlace(&f.file);
    EscapeInPlace(&f.module);
  }
}

}  // namespace

std::string EscapeControl(std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x80) {
      if (const size_t n = Utf8SequenceLength(text, i)) {
        out.append(text.substr(i, n));
        i += n;
        continue;
      }
    }
    ++i;
    if (c >= 0x20 && c < 0x7f) {
      out.push_back(static_cast<char>(c));
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\r') {
      out += "\\r";
    } else {
      out += "\\x";
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    }
  }
  return out;
}

Finding EscapedFinding(const Finding& finding) {
  Finding f = finding;
  for (std::string* s :
       {&f.rule, &f.message, &f.reason, &f.fix, &f.fingerprint, &f.buffer.allocated_by, &f.order_gap})
    EscapeInPlace(s);
  EscapeStack(&f.buffer.allocation_stack);
  for (std::vector<FindingAccess>* list : {&f.accesses, &f.syncs}) {
    for (FindingAccess& a : *list) {
      for (std::string* s : {&a.role, &a.op, &a.api, &a.framework_op, &a.stream, &a.stream_kind,
                             &a.stream_origin.created_by, &a.stream_origin.first_op, &a.event_origin.created_by,
                             &a.scope})
        EscapeInPlace(s);
      for (std::vector<ResolvedFrame>* stack : {&a.stack, &a.stream_origin.created_at,
                                                &a.stream_origin.first_used_at, &a.event_origin.created_at})
        EscapeStack(stack);
    }
  }
  return f;
}

}  // namespace streamcheck::report
