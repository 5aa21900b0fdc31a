// Calls in the statement walk: a modeled CUDA or library API, a host clock
// or algorithm, a function of another file through its summary, or a helper
// of the project followed in place (Inline), a constructor among them
// (Construct), and what a call not followed may have changed. Part of
// TransferWalker (transfer_walker.h); the rest of the walk is in
// transfer_walker.cpp.
#include "analyzer/transfer_walker.h"

#include <cstdio>

#include <clang/AST/ASTContext.h>
#include <clang/AST/Attr.h>
#include <clang/AST/Decl.h>
#include <clang/AST/DeclCXX.h>
#include <clang/Basic/SourceManager.h>
#include <llvm/ADT/ScopeExit.h>

namespace streamcheck::lint {

// Visits a call's arguments. Those the callee may write through (an address,
// a non-const reference) lose the conditions the path took on them now, and
// are returned, for their known values to go unless the call is followed.
std::vector<std::string> TransferWalker::VisitArguments(const clang::CallExpr* call, const clang::FunctionDecl* fd) {
  std::vector<std::string> handed;
  // A member operator's first argument is its object (forget_object below).
  const unsigned object_args =
      llvm::isa<clang::CXXOperatorCallExpr>(call) && llvm::isa_and_nonnull<clang::CXXMethodDecl>(fd) ? 1 : 0;
  for (unsigned i = 0; i < call->getNumArgs(); ++i) {
    const clang::Expr* a = call->getArg(i);
    Visit(a, a->getType()->isPointerType() ? Use::kAddress : Use::kValue);
    // `getopt(&x)`, a non-const reference parameter (`std::swap(curr, prev)`):
    // the callee may write the variable; a value or const reference
    // parameter (`map[stream]`) cannot, nor a variadic one (passed by
    // value). (A condition on a global is taken to
    // keep its value across a call the analysis does not follow:
    // configuration flags are set once.)
    const clang::ParmVarDecl* param =
        fd != nullptr && i >= object_args && i - object_args < fd->getNumParams() ? fd->getParamDecl(i - object_args)
                                                                                  : nullptr;
    const auto writable = [](clang::QualType t) { return !t.isNull() && !t.isConstQualified(); };
    const auto* address = llvm::dyn_cast<clang::UnaryOperator>(a->IgnoreParenCasts());  // `(void**)&p` too
    const clang::Expr* written = nullptr;
    if (address != nullptr && address->getOpcode() == clang::UO_AddrOf) {
      const bool to_const = param != nullptr && param->getType()->isPointerType() &&
                            !writable(param->getType()->getPointeeType());
      if (!to_const) written = address->getSubExpr();
    } else if (a->isLValue() && param != nullptr && param->getType()->isReferenceType() &&
               writable(param->getType().getNonReferenceType())) {
      written = a;
    }
    if (written == nullptr) continue;
    std::string key = SymbolOf(written, frame_.bindings, ast_).key;
    // An lvalue with no name is taken to be any variable (""), but the
    // standard library's (`std::cout << a << b`: the stream the previous
    // `<<` returned) is its own object.
    if (key.empty() && fd != nullptr && fd->getQualifiedNameAsString().rfind("std::", 0) == 0) continue;
    NoteRebound(written);
    handed.push_back(std::move(key));
    ForgetFacts(s_, handed.back(), false);
  }
  return handed;
}

void TransferWalker::Call(const clang::CallExpr* call) {
  const clang::FunctionDecl* fd = call->getDirectCallee();
  // Variables handed by address or reference: a callee the walk follows is
  // seen writing them; one it does not follow may have stored anything, so
  // their known values go unless the call is followed.
  const std::vector<std::string> handed = VisitArguments(call, fd);
  bool followed = false;
  const llvm::scope_exit forget_handed([&] {
    if (followed) return;
    for (const std::string& key : handed) ForgetKnownValues(s_, key);
  });
  if (fd == nullptr) {
    // `pfn_cuStreamSynchronize(s)`: a CUDA call through a pointer the driver gave.
    const std::string through = fa_.entry_points_.CalledThrough(call, ast_);
    if (const ApiModel* api = through.empty() ? nullptr : FindApi(through)) Api(call, *api, std::string(api->name));
    return;
  }
  // A method not followed may change its object (`t.reset()` pointing
  // `t.data_` elsewhere): what was asked of its members is asked again.
  const auto forget_object = [&] {
    const auto* member = llvm::dyn_cast<clang::CXXMemberCallExpr>(call);
    const clang::CXXMethodDecl* method = member != nullptr ? member->getMethodDecl() : nullptr;
    if (method == nullptr || method->isConst()) return;
    const Symbol object = ObjectOf(member->getImplicitObjectArgument(), frame_.bindings, ast_);
    if (!object.empty()) ForgetFacts(s_, object.key);
  };
  const clang::SourceManager& sm = ast_.getSourceManager();
  const bool user_code = IsProjectCode(fd, ast_);
  // Operators have no plain name: only the main file's (a lambda's or
  // functor's operator()) are of interest, and they are followed below.
  if (!user_code && fd->getIdentifier() == nullptr) return;
  const llvm::StringRef name = fd->getIdentifier() != nullptr ? fd->getName() : llvm::StringRef();
  if (name == "__cudaPushCallConfiguration" || name == "cudaConfigureCall") return;
  // Defined in another file of the project: what its summary says it does.
  if (!fd->isDefined() && !sm.isInSystemHeader(sm.getExpansionLoc(fd->getLocation())) &&
      (fa_.options_.summaries != nullptr || fa_.options_.external_calls != nullptr) &&
      (name.empty() || FindApi(name) == nullptr)) {
    const std::string& usr = fa_.Usr(fd);
    if (fa_.options_.external_calls != nullptr && !usr.empty()) fa_.options_.external_calls->insert(usr);
    if (fa_.options_.summaries != nullptr) {
      if (auto it = fa_.options_.summaries->find(usr); it != fa_.options_.summaries->end()) {
        forget_object();
        ApplySummary(call, it->second);
        return;
      }
    }
    if (name.empty() || FindApi(name) == nullptr) ForgetFreedUnder(call);
  }
  if (!user_code) {
    forget_object();
    if (const clang::CXXConstructorDecl* ctor = MadeBy(call, fd)) {
      followed = Construct(call, ctor, std::vector<const clang::Expr*>(call->arg_begin(), call->arg_end()));
      return;
    }
    if (IsHostClock(fd->getQualifiedNameAsString())) {
      if (report_) {
        ClockRead r{fd->getQualifiedNameAsString(), Loc(call->getBeginLoc()), call->getBeginLoc(), frame_.helper,
                    frame_.context};
        for (const auto& check : fa_.checks_) check->OnHostClock(r, s_, fa_.ctx_);
      }
      s_.since_clock = OpSet{};
      s_.clock_loc = Loc(call->getBeginLoc());
      s_.clock_inner_loc = call->getBeginLoc();
      s_.clock_context = frame_.context;
      return;
    }
    if (const ApiModel* api = FindApi(name)) {
      Api(call, *api, std::string(api->name));  // cuMemAlloc for cuMemAlloc_v2, cudaMemcpyAsync for _ptsz
    } else if (const LibraryModel* library = FindLibrary(name)) {
      LibraryCall(call, fd, *library, std::string(name));
    } else if (const HostAlgorithm* algorithm =
                   FindHostAlgorithm(fd->getQualifiedNameAsString(), call->getNumArgs())) {
      HostAlgorithmCall(call, *algorithm);
    }
    return;
  }
  const clang::FunctionDecl* def = Inlinable(fd);
  if (def == nullptr) {
    forget_object();
    ForgetFreedUnder(call);
    // A helper whose code does not compile may wait for the streams it is
    // given: nothing pending on them is judged after the call (it is named
    // as not followed, and the analysis as incomplete).
    if (fd->getDefinition() != nullptr && fa_.helpers_not_compiled_.count(fd->getDefinition()) != 0) {
      for (const clang::Expr* a : call->arguments()) {
        if (IsStreamType(a->getType())) HostSyncStream(s_, StreamSym(a).key, fa_.ops_);
      }
    }
    return;
  }
  // A method: `this` is the object it is called on (`obj.f()`, `p->f()`, a
  // functor's or lambda's `operator()`).
  std::vector<const clang::Expr*> args(call->arg_begin(), call->arg_end());
  Symbol this_object;
  if (const auto* member = llvm::dyn_cast<clang::CXXMemberCallExpr>(call)) {
    this_object = ObjectOf(member->getImplicitObjectArgument(), frame_.bindings, ast_);
  } else if (llvm::isa<clang::CXXOperatorCallExpr>(call) && llvm::isa<clang::CXXMethodDecl>(def) && !args.empty()) {
    this_object = ObjectOf(args.front(), frame_.bindings, ast_);
    args.erase(args.begin());
  }
  followed = true;
  Inline(call, def, args, this_object);
}

// A call the analysis does not follow (too deep, recursive, defined
// elsewhere) may allocate again what its pointer arguments lead to
// (`add_chunk(alloc)` refilling `alloc->chunks[n]`): what was freed under
// them is no longer known to be freed.
void TransferWalker::ForgetFreedUnder(const clang::CallExpr* call) {
  if (s_.freed.empty()) return;
  for (const clang::Expr* a : call->arguments()) {
    const clang::QualType type = a->getType();
    if (!type->isPointerType() && !type->isReferenceType() && !type->isRecordType()) continue;
    const Symbol arg = Sym(a);
    if (arg.empty() || arg.key.find_first_not_of("&*") == std::string::npos) continue;
    ForgetFreedUnder(arg.key, true);
  }
}

// What was freed through `key` (`key->val`, `key[i]`, and `key` itself when
// `itself`): no longer the same memory once `key` is refilled.
void TransferWalker::ForgetFreedUnder(const std::string& key, bool itself) {
  std::erase_if(s_.freed, [&](const auto& f) { return ReachedThrough(f.first, key, itself); });
}

// `n = n->next` walking a list: the pointer `root` leads elsewhere now. What
// was freed through it (`n->val`, the section freed in the last iteration) is
// not what it leads to; a pointer that took its value through it (`s =
// n->val`) still holds the old object, and becomes a base of its own, freed
// if that was.
void TransferWalker::Repoint(const std::string& root) {
  if (s_.freed.empty()) return;
  std::vector<std::string> held;
  for (const auto& [name, ref] : s_.aliases)
    if (ReachedThrough(ref.base.key, root, false)) held.push_back(name);
  for (const std::string& name : held) {
    const std::string base = s_.aliases[name].base.key;
    s_.aliases.erase(name);
    if (auto f = s_.freed.find(base); f != s_.freed.end()) s_.freed[name] = f->second;
    if (auto b = s_.buffers.find(base); b != s_.buffers.end()) s_.buffers[name] = b->second;
  }
  ForgetFreedUnder(root, false);
}

bool TransferWalker::Construct(const clang::Expr* site, const clang::CXXConstructorDecl* ctor,
                               const std::vector<const clang::Expr*>& args) {
  const clang::FunctionDecl* def = Inlinable(ctor);
  if (def == nullptr) return false;
  // An object of its own, one per call site and call chain.
  char buf[32];
  std::snprintf(buf, sizeof buf, "%p", static_cast<const void*>(site));
  const std::string key = "new@" + frame_.context + buf;
  Inline(site, def, args, Symbol{"&" + key, "&*(" + TextOf(site, ast_) + ")"});
  return true;
}

// The constructor `std::make_shared<T>(args...)` or `std::make_unique<T>(args...)`
// runs: T's one constructor (not a copy or move) that takes that many
// arguments (its defaults counted), or where several do, the one whose
// parameters have the arguments' types, as the library body's overload
// resolution would choose it for the arguments as written.
const clang::CXXConstructorDecl* TransferWalker::MadeBy(const clang::CallExpr* call,
                                                        const clang::FunctionDecl* fd) const {
  const std::string name = fd->getQualifiedNameAsString();
  if (name != "std::make_shared" && name != "std::make_unique") return nullptr;
  const clang::TemplateArgumentList* targs = fd->getTemplateSpecializationArgs();
  if (targs == nullptr || targs->size() == 0 || targs->get(0).getKind() != clang::TemplateArgument::Type) {
    return nullptr;
  }
  const auto* record = targs->get(0).getAsType()->getAsCXXRecordDecl();
  if (record == nullptr || !record->hasDefinition()) return nullptr;
  const unsigned n = call->getNumArgs();
  std::vector<const clang::CXXConstructorDecl*> taking;
  for (const clang::CXXConstructorDecl* ctor : record->getDefinition()->ctors()) {
    if (!ctor->isCopyOrMoveConstructor() && ctor->getMinRequiredArguments() <= n && n <= ctor->getNumParams()) {
      taking.push_back(ctor);
    }
  }
  if (taking.size() == 1) return taking.front();
  const clang::CXXConstructorDecl* found = nullptr;
  for (const clang::CXXConstructorDecl* ctor : taking) {
    bool fits = true;
    for (unsigned i = 0; i < n && fits; ++i) {
      const clang::QualType want = ctor->getParamDecl(i)->getType().getNonReferenceType().getUnqualifiedType();
      const clang::QualType have = call->getArg(i)->getType().getNonReferenceType().getUnqualifiedType();
      fits = ast_.hasSameType(want.getCanonicalType(), have.getCanonicalType());
    }
    if (!fits) continue;
    if (found != nullptr) return nullptr;  // more than one: not chosen here
    found = ctor;
  }
  return found;
}

const clang::FunctionDecl* TransferWalker::Inlinable(const clang::FunctionDecl* fd) const {
  if (fd == nullptr || !IsProjectCode(fd, ast_)) return nullptr;
  const clang::FunctionDecl* def = fd->getDefinition();
  if (def == nullptr || !def->hasBody() || def->hasAttr<clang::CUDAGlobalAttr>()) return nullptr;
  if (def->hasAttr<clang::CUDADeviceAttr>() && !def->hasAttr<clang::CUDAHostAttr>()) return nullptr;
  if (static_cast<int>(frame_.stack.size()) > fa_.options_.max_inline_depth) return nullptr;
  if (fa_.options_.compile_error) {
    if (const std::string* error = fa_.options_.compile_error(def)) {
      fa_.helpers_not_compiled_.emplace(def, *error);
      return nullptr;
    }
  }
  for (const clang::FunctionDecl* f : frame_.stack) {
    if (f == def) return nullptr;  // recursion: not followed
  }
  if (fa_.budget_.transfers > fa_.options_.max_transfers) {
    fa_.budget_.stopped_inlining = true;
    return nullptr;
  }
  return def;
}

void TransferWalker::Inline(const clang::Expr* site, const clang::FunctionDecl* fd,
                            const std::vector<const clang::Expr*>& args, const Symbol& this_object) {
  FunctionAnalyzer::Frame inner;
  inner.anchor = Loc(site->getBeginLoc());
  inner.helper = fd->getNameAsString();
  char buf[32];
  std::snprintf(buf, sizeof buf, "%p/", static_cast<const void*>(site));
  inner.context = frame_.context + buf;
  fa_.ctx_.NoteHelperCall(inner.context, site->getBeginLoc(), inner.helper);
  inner.stack = frame_.stack;
  inner.stack.push_back(fd);
  inner.may_run_again = frame_.may_run_again || MayRunAgain(site, ast_);
  inner.bindings.this_object = this_object;
  inner.bindings.counters = &fa_.loop_counters_;
  inner.bindings.context = inner.context;
  inner.bindings.function = static_cast<const clang::DeclContext*>(fd);
  for (unsigned i = 0; i < fd->getNumParams() && i < args.size(); ++i) {
    const clang::ParmVarDecl* p = fd->getParamDecl(i);
    const clang::Expr* a = args[i];
    Symbol v = IsStreamType(p->getType()) ? StreamSym(a) : Sym(a);
    if (!v.empty()) inner.bindings.values[p] = v;
    if (p->getType()->isPointerType() && !IsHandleType(p->getType())) {
      const BufferRef r = Buf(a);
      if (r.valid()) inner.bindings.buffers[p] = r;
      std::vector<LoopStride> moves = UnknownStridesAt(site->getBeginLoc(), a);
      if (!moves.empty()) inner.unknown_strides[p] = std::move(moves);
    }
  }
  s_.returned.reset();
  s_.returned_query.reset();
  s_ = fa_.RunCfg(fd, s_, inner, report_);
  if (s_.returned) s_.returned->call = site;
  if (s_.returned_query) s_.returned_query->call = site;
}

// `return v;` of a buffer or a std::vector: the caller's `auto w = helper()`
// names the same memory (and the end of v's scope does not free it).
void TransferWalker::Return(const clang::Expr* value) {
  s_.returned.reset();
  if (value == nullptr) return;
  const clang::QualType type = value->getType();
  if (IsHandleType(type)) {
    // `return s;` of a stream or event the helper made: the caller's variable names it.
    BufferRef handle;
    handle.base = IsStreamType(type) ? StreamSym(value) : Sym(value);
    if (!handle.base.empty()) s_.returned = FlowState::Returned{nullptr, handle};
    return;
  }
  if (!type->isPointerType() && !IsStdVector(type)) return;
  const BufferRef r = Buf(value);
  if (r.valid()) s_.returned = FlowState::Returned{nullptr, r};
}

// A local array or std::vector whose scope ends while a copy into it is
// pending: freed under the copy (CFG lifetime ends; only then, so the end of
// every other variable costs nothing). A vector an inlined helper filled and
// returned (`auto v = fill(s)`) is the helper's memory under the caller's name.

}  // namespace streamcheck::lint
