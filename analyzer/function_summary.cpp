// Computing a function's summary (FunctionAnalyzer::Summarize) and applying
// it at a call in another file (TransferWalker::ApplySummary).
#include "analyzer/function_summary.h"

#include <clang/AST/Decl.h>
#include <clang/Index/USRGeneration.h>

#include "analyzer/pointer_query.h"
#include "analyzer/transfer_walker.h"

namespace streamcheck::lint {

std::string UsrOf(const clang::FunctionDecl* fn) {
  llvm::SmallString<128> usr;
  if (clang::index::generateUSRForDecl(fn, usr)) return {};  // true: no USR
  return usr.str().str();
}

const std::string& FunctionAnalyzer::Usr(const clang::FunctionDecl* fn) {
  auto it = usrs_.find(fn);
  if (it == usrs_.end()) it = usrs_.emplace(fn, UsrOf(fn)).first;
  return it->second;
}

std::optional<unsigned> FunctionAnalyzer::QueryParam(const clang::FunctionDecl* def) {
  auto it = query_params_.find(def);
  if (it == query_params_.end()) it = query_params_.emplace(def, PointerQueryParam(def)).first;
  return it->second;
}

namespace {

// "relax(k1,k2,)" with the parameters' keys as `$N`; "" if a key is neither a
// parameter nor a constant (a local of the function: its value at each call is unknown).
std::string RangeOverParams(const std::string& range, const std::map<std::string, int>& params) {
  const size_t open = range.find('(');
  if (range.empty() || open == std::string::npos || range.back() != ')') return {};
  std::string out = range.substr(0, open + 1);
  size_t at = open + 1;
  while (at < range.size() - 1) {
    const size_t comma = range.find(',', at);
    if (comma == std::string::npos) return {};
    const std::string key = range.substr(at, comma - at);
    if (auto it = params.find(key); it != params.end()) {
      out += "$" + std::to_string(it->second) + ",";
    } else if (!key.empty() && key[0] == '#') {
      out += key + ",";
    } else {
      return {};
    }
    at = comma + 1;
  }
  return out + ")";
}

// A guard's condition over a pointer-location query of a parameter
// ("(loc?:USR(K)|VAR==#-1)" with K the parameter's key) with the parameter
// as `$N` ("(loc:USR($N)==#-1)"); "" for any other condition (one that reads
// anything but the query and constants).
std::string QueryConditionOverParams(const std::string& condition, const std::map<std::string, int>& params) {
  size_t start = condition.find("loc?:");
  const size_t mark = start != std::string::npos ? 5 : 4;
  if (start == std::string::npos) start = condition.find("loc:");
  if (start == std::string::npos) return {};
  const size_t open = condition.find('(', start);
  const size_t close = open == std::string::npos ? open : condition.find(')', open);
  if (close == std::string::npos) return {};
  auto it = params.find(condition.substr(open + 1, close - open - 1));
  if (it == params.end()) return {};
  size_t after = close + 1;
  if (mark == 5 && after < condition.size() && condition[after] == '|') after = condition.find_first_of(")=!<>|", after + 1);
  if (after == std::string::npos) return {};
  const std::string rest = condition.substr(0, start) + condition.substr(after);
  if (rest.find_first_not_of("()=!<>#-0123456789") != std::string::npos) return {};
  return condition.substr(0, start) + "loc:" + condition.substr(start + mark, open + 1 - start - mark) + "$" +
         std::to_string(it->second) + ")" + condition.substr(after);
}

// The streams `fn` names by a call of no arguments to a function that is
// no getter the lint reads through (`get_stream()`): keyed as StreamSym keys
// them, by the call's text; with the first such call.
std::map<std::string, const clang::CallExpr*> GetterStreams(const clang::FunctionDecl* fn, const Bindings& b,
                                                            const clang::ASTContext& ast) {
  std::map<std::string, const clang::CallExpr*> out;
  std::vector<const clang::Stmt*> todo{fn->getBody()};
  while (!todo.empty()) {
    const clang::Stmt* s = todo.back();
    todo.pop_back();
    if (s == nullptr) continue;
    const auto* call = llvm::dyn_cast<clang::CallExpr>(s);
    if (call != nullptr && call->getNumArgs() == 0 && !llvm::isa<clang::CXXMemberCallExpr>(call) &&
        IsStreamType(call->getType()) && SymbolOf(call, b, ast).empty()) {
      out.emplace("?" + TextOf(call, ast), call);
    }
    for (const clang::Stmt* child : s->children()) todo.push_back(child);
  }
  return out;
}

}  // namespace

std::optional<FunctionSummary> FunctionAnalyzer::Summarize(const clang::FunctionDecl* fn) {
  Frame top;
  top.stack.push_back(fn);
  top.bindings.counters = &loop_counters_;
  FlowState entry;
  entry.reached = true;
  // Probes: work the caller queued before the call, on each stream parameter
  // and on a blocking and a non-blocking stream of the caller's own. Which of
  // them are still pending at the exit says what the function waited for.
  OpSet probes;
  const auto probe = [&](const void* site, const Symbol& stream) {
    DeviceOp& op = ops_[ops_.Intern(site, "summary-probe")];
    probes.insert(op.id);
    op.stream = stream;
    op.stream_id = ops_.StreamId(stream.key);
    op.api = "probe";
    op.accesses.clear();
    op.captured = false;
    IssueOp(entry, op, ops_);
    return op.id;
  };
  std::map<int, int> param_probes;
  std::map<std::string, int> stream_params, pointer_params, all_params;
  // An event parameter comes recorded on a stream of the caller's own, with a
  // probe of its work: a stream parameter after which that probe is ordered
  // at the exit was made to wait for the event.
  std::map<int, std::pair<std::string, int>> event_probes;  // param -> its key, the probe in it
  for (unsigned i = 0; i < fn->getNumParams(); ++i) {
    const clang::ParmVarDecl* p = fn->getParamDecl(i);
    const Symbol sym = SymbolOfDecl(p, top.bindings);
    all_params[sym.key] = static_cast<int>(i);
    if (IsStreamType(p->getType())) {
      param_probes[static_cast<int>(i)] = probe(p, sym);
      stream_params[sym.key] = static_cast<int>(i);
    } else if (IsEventType(p->getType())) {
      const Symbol recorded_on{"?caller-event-stream-" + std::to_string(i), "a stream of the caller"};
      entry.streams[recorded_on.key] = StreamInfo{StreamKind::kNonBlocking, false, {}};
      event_probes[static_cast<int>(i)] = {sym.key, probe(p, recorded_on)};
      RecordEvent(entry, sym.key, recorded_on, p->getLocation(), ops_);
    } else if (p->getType()->isPointerType() && !IsHandleType(p->getType())) {
      pointer_params[sym.key] = static_cast<int>(i);
    }
  }
  const Symbol blocking{"?caller-blocking-stream", "a stream of the caller"};
  const Symbol nonblocking{"?caller-nonblocking-stream", "a non-blocking stream of the caller"};
  entry.streams[blocking.key] = StreamInfo{StreamKind::kBlocking, false, {}};
  entry.streams[nonblocking.key] = StreamInfo{StreamKind::kNonBlocking, false, {}};
  const int blocking_probe = probe(&blocking, blocking);
  const int nonblocking_probe = probe(&nonblocking, nonblocking);
  const std::map<std::string, const clang::CallExpr*> getters = GetterStreams(fn, top.bindings, ast_);
  std::map<std::string, int> getter_probes;
  for (const auto& [key, call] : getters) getter_probes[key] = probe(call, Symbol{key, key.substr(1)});

  const FlowState exit = RunCfg(fn, entry, top, /*report=*/false);
  FunctionSummary summary;
  summary.name = fn->getQualifiedNameAsString();
  for (const auto& [param, id] : param_probes) {
    if (exit.pending.count(id) == 0) summary.synced_stream_params.push_back(param);
  }
  for (const auto& [event_param, event] : event_probes) {
    const auto& [event_key, event_probe] = event;
    auto captured = exit.event_capture.find(event_key);
    for (const auto& [stream_param, stream_probe] : param_probes) {
      // Recorded again here, on the stream parameter: it holds the caller's work there.
      if (captured != exit.event_capture.end() && captured->second.count(stream_probe) != 0 &&
          captured->second.count(event_probe) == 0) {
        summary.records.emplace_back(event_param, stream_param);
      }
      const std::string& stream_key = SymbolOfDecl(fn->getParamDecl(stream_param), top.bindings).key;
      if (AfterSet(exit, stream_key).count(event_probe) != 0) summary.waits.emplace_back(stream_param, event_param);
    }
  }
  if (exit.returned && exit.returned->ref.offset_key.empty() && pointer_params.count(exit.returned->ref.base.key) == 0) {
    if (auto made = exit.buffers.find(exit.returned->ref.base.key); made != exit.buffers.end()) {
      summary.returns_new = made->second.kind;
    }
  }
  for (const auto& [key, id] : getter_probes) {
    if (exit.pending.count(id) == 0) summary.synced_getter_streams.push_back(key);
  }
  summary.syncs_device = exit.pending.count(nonblocking_probe) == 0;
  summary.syncs_legacy = !summary.syncs_device && exit.pending.count(blocking_probe) == 0;
  for (int id : exit.pending) {
    const DeviceOp& op = ops_[id];
    if (probes.count(id) != 0 || op.captured) continue;
    SummaryOp queued;
    queued.api = op.api;
    queued.what = op.what;
    if (auto it = stream_params.find(op.stream.key); it != stream_params.end()) {
      queued.stream_param = it->second;
    } else if (op.stream.key == kLegacyStream || op.stream.key == kPerThreadStream) {
      queued.stream = op.stream.key;
    } else if (getters.count(op.stream.key) != 0) {
      queued.stream = op.stream.key;
      queued.stream_text = op.stream.text;
    }
    // Only accesses to what the caller passed in can meet the caller's work.
    for (const BufferAccess& a : op.accesses) {
      auto it = pointer_params.find(a.ref.base.key);
      if (it == pointer_params.end()) continue;
      SummaryAccess access;
      access.param = it->second;
      access.mode = a.mode;
      access.offset_bytes = a.ref.offset_key.empty() ? std::optional<int64_t>(0) : a.ref.offset_bytes;
      access.size_bytes = a.size_bytes;
      access.atomic = a.atomic;
      access.index_range = RangeOverParams(a.index_range, all_params);
      queued.accesses.push_back(access);
    }
    // Issued only on one value of a query of a parameter (a copy-out helper's
    // device-to-device branch): said so, for the caller's own test of it.
    for (const auto& [key, guard] : exit.guarded) {
      if (guard.ops.count(id) == 0 || key.size() < 2) continue;
      const std::string condition = QueryConditionOverParams(key.substr(0, key.size() - 2), all_params);
      if (condition.empty()) continue;
      queued.only_if = condition;
      queued.only_if_value = key.back() == '1';
      break;
    }
    if (!queued.accesses.empty()) summary.leaves_queued.push_back(std::move(queued));
  }
  if (summary.empty()) return std::nullopt;
  return summary;
}

// A summary's "relax($3,#1,)" with the call's arguments' keys, as KernelArgs writes them.
std::string TransferWalker::RangeAtCall(const std::string& range, const clang::CallExpr* call) const {
  if (range.empty()) return {};
  std::string out;
  for (size_t at = 0; at < range.size();) {
    if (range[at] != '$') {
      out += range[at++];
      continue;
    }
    const size_t end = range.find(',', at);
    const unsigned param = static_cast<unsigned>(std::stoul(range.substr(at + 1, end - at - 1)));
    const clang::Expr* arg = Arg(call, static_cast<int>(param));
    const Symbol v = arg != nullptr ? Sym(arg) : Symbol{};
    out += v.empty() ? (arg != nullptr ? TextOf(arg, ast_) : "?") : v.key;
    at = end;
  }
  return out;
}

void TransferWalker::ApplySummary(const clang::CallExpr* call, const FunctionSummary& summary) {
  for (int param : summary.synced_stream_params) HostSyncStream(s_, StreamSym(Arg(call, param)).key, fa_.ops_);
  for (const std::string& getter : summary.synced_getter_streams) HostSyncStream(s_, getter, fa_.ops_);
  for (const auto& [stream, event] : summary.waits) {
    const Symbol e = Sym(Arg(call, event));
    if (!e.empty()) StreamWaitEvent(s_, StreamSym(Arg(call, stream)).key, e.key);
  }
  if (summary.syncs_device) {
    HostSyncDevice(s_, fa_.ops_);
  } else if (summary.syncs_legacy) {
    HostSyncStream(s_, kLegacyStream, fa_.ops_);
  }
  for (size_t i = 0; i < summary.leaves_queued.size(); ++i) {
    const SummaryOp& queued = summary.leaves_queued[i];
    Symbol stream;
    if (queued.stream_param >= 0) {
      stream = StreamSym(Arg(call, queued.stream_param));
    } else if (queued.stream == kLegacyStream || queued.stream == kPerThreadStream) {
      stream = queued.stream == kLegacyStream ? Symbol{kLegacyStream, "the legacy default stream"}
                                              : Symbol{kPerThreadStream, "the per-thread default stream"};
    } else if (!queued.stream.empty()) {
      stream = Symbol{queued.stream, queued.stream_text};  // a getter's, the same wherever it is called
    } else {
      // A stream of the callee's own: distinct from the caller's, unknown otherwise.
      char site[32];
      std::snprintf(site, sizeof site, "%p", static_cast<const void*>(call));
      stream = Symbol{"?" + summary.name + "@" + site + frame_.context, "a stream of `" + summary.name + "`"};
    }
    DeviceOp& op = NewOp(call, queued.api, queued.what + " (queued by `" + summary.name + "`)", stream,
                         "summary#" + std::to_string(i));
    // An async copy the callee left queued, with the caller's pageable memory
    // on one side, is what Copy makes of one made here (cuda_api_semantics.cpp):
    // a pageable source has been read when the call returns, a pageable
    // destination is staged (pageable-async-copy). The callee could not tell:
    // to it the buffer was a parameter of unknown memory.
    const ApiModel* model = FindApi(queued.api);
    const bool async_copy = model != nullptr && model->kind == ApiKind::kMemcpyAsync;
    for (const SummaryAccess& access : queued.accesses) {
      BufferAccess a;
      a.ref = Buf(Arg(call, access.param));
      if (!a.ref.valid()) continue;
      if (async_copy && IsPageableHost(Arg(call, access.param))) {
        if (access.mode == AccessMode::kRead) continue;
        op.staged_into_pageable = true;
      }
      if (!access.offset_bytes) {
        a.ref.offset_key += (a.ref.offset_key.empty() ? "" : "+") + std::string("?");
        a.ref.offset_bytes.reset();
      } else if (*access.offset_bytes != 0) {
        a.ref.offset_key += (a.ref.offset_key.empty() ? "#b" : "+#b") + std::to_string(*access.offset_bytes);
        if (a.ref.offset_bytes) *a.ref.offset_bytes += *access.offset_bytes;
      }
      a.mode = access.mode;
      a.size_bytes = access.size_bytes;
      a.atomic = access.atomic;
      a.index_range = RangeAtCall(access.index_range, call);
      op.accesses.push_back(a);
    }
    Issue(op);
    if (!queued.only_if.empty()) GuardByQuery(op, queued, call);
  }
  // Recorded after the work it left queued, which the record then holds.
  for (const auto& [event, stream] : summary.records) {
    const Symbol e = Sym(Arg(call, event));
    if (!e.empty()) RecordEvent(s_, e.key, StreamSym(Arg(call, stream)), Loc(call->getBeginLoc()), fa_.ops_);
  }
}

// The summary's "(loc:USR($N)==#-1)" with the argument's name, when USR is a
// query (its own summary says so): the op pending only on that value.
void TransferWalker::GuardByQuery(const DeviceOp& op, const SummaryOp& queued, const clang::CallExpr* call) {
  const size_t usr_at = queued.only_if.find("loc:") + 4;
  const size_t param_at = queued.only_if.find("($", usr_at);
  const size_t close = param_at == std::string::npos ? param_at : queued.only_if.find(')', param_at);
  if (close == std::string::npos) return;
  auto query = fa_.options_.summaries->find(queued.only_if.substr(usr_at, param_at - usr_at));
  if (query == fa_.options_.summaries->end() || query->second.query_param < 0) return;
  const clang::Expr* arg = Arg(call, std::stoi(queued.only_if.substr(param_at + 2, close - param_at - 2)));
  const Symbol pointer = arg != nullptr ? SymbolOf(arg, frame_.bindings, ast_) : Symbol{};
  if (!IsQueryablePointer(pointer) || Rebound(pointer.key)) return;
  const std::string condition = queued.only_if.substr(0, param_at + 1) + pointer.key + queued.only_if.substr(close);
  FlowState::Guard& g = s_.guarded[GuardKey(condition, queued.only_if_value)];
  g.ops.insert(op.id);
  g.vars = {pointer.key};
}

}  // namespace streamcheck::lint
