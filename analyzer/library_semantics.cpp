// What a call into a CUDA library does to the stream state (library_api.h):
// a SetStream call binds its handle to a stream, a Create call makes a handle
// on the legacy default stream (or a cuSPARSE descriptor of the buffers it is
// given), and every other call but bookkeeping is an operation on its stream
// that reads its `const T*` arguments and writes its `T*` ones.
#include <clang/AST/ASTContext.h>
#include <clang/AST/Decl.h>
#include <clang/AST/Type.h>

#include "analyzer/library_api.h"
#include "analyzer/transfer_walker.h"

namespace streamcheck::lint {
namespace {

// Handles and descriptors are typedefs of pointers (cublasLtMatmulDesc_t,
// cusparseDnVecDescr_t, ncclComm_t); data pointers are spelled `T*`.
bool IsOpaqueHandle(clang::QualType t) {
  const auto* typedef_type = t->getAs<clang::TypedefType>();
  return typedef_type != nullptr && t->isPointerType() && !t->getPointeeType()->isVoidType() &&
         typedef_type->getDecl()->getName().ends_with("_t");
}

// A pointer parameter the call reads or writes through: not the handle or a
// descriptor, not a host scalar (alpha, beta, a dot product's result, whose
// pointer mode may make the call read or write them during the call).
// cuFFT's multi-GPU descriptor (cudaLibXtDesc): a host structure that lists
// the buffers on each GPU, filled in by cufftXtMalloc before it returns; the
// work is on the buffers it lists, never on the structure.
bool IsHostDescriptor(clang::QualType t) {
  while (t->isPointerType()) t = t->getPointeeType();
  return t.getUnqualifiedType().getAsString().find("XtDesc") != std::string::npos;
}

bool IsDataPointer(const clang::ParmVarDecl* p) {
  const clang::QualType t = p->getType();
  if (!t->isPointerType() || IsOpaqueHandle(t) || IsHandleType(t) || IsHostDescriptor(t)) return false;
  const llvm::StringRef name = p->getName();
  return name != "alpha" && name != "beta" && name != "result";
}

}  // namespace

// `Key@stream`: where the analysis keeps the stream a library handle is bound to.
std::string LibraryStreamKey(const Symbol& handle) { return handle.key + "@stream"; }

void TransferWalker::LibraryCall(const clang::CallExpr* call, const clang::FunctionDecl* fd,
                                 const LibraryModel& library, const std::string& name) {
  const clang::Expr* first = Arg(call, 0);
  switch (ClassifyLibraryCall(library, name)) {
    case LibraryCall::kBookkeeping: return;
    case LibraryCall::kSetStream: {
      const Symbol handle = Sym(first);
      if (!handle.empty()) s_.values[LibraryStreamKey(handle)] = StreamSym(Arg(call, 1));
      return;
    }
    case LibraryCall::kCreate: {
      const Symbol out = SymbolOf(first, frame_.bindings, ast_);
      if (out.empty()) return;
      const Symbol handle{PointeeKey(out), PointeeText(out)};
      // A library's own handle starts on the legacy default stream ("the NULL stream").
      s_.values[LibraryStreamKey(handle)] = Symbol{kLegacyStream, "the legacy default stream"};
      // cuRAND's host generator generates on the host, into host memory, before
      // its calls return: no work on a stream, whatever stream it is given.
      if (name.find("GeneratorHost") != std::string::npos) {
        s_.values[handle.key + "@host"] = Symbol{"#host", "the host"};
      } else {
        s_.values.erase(handle.key + "@host");
      }
      // A descriptor (cusparseCreateDnVec(&vec, n, values, type)): the buffers it stands for.
      int k = 0;
      for (unsigned i = 1; i < call->getNumArgs() && i < fd->getNumParams(); ++i) {
        if (!IsDataPointer(fd->getParamDecl(i))) continue;
        const BufferRef r = Buf(call->getArg(i));
        if (r.valid()) s_.aliases[handle.key + "#" + std::to_string(k++)] = r;
      }
      return;
    }
    case LibraryCall::kWork: break;
  }
  ++fa_.cuda_calls_;
  // The stream: an argument of type cudaStream_t, else the handle's.
  Symbol stream;
  for (unsigned i = 0; i < call->getNumArgs() && i < fd->getNumParams(); ++i) {
    if (IsStreamType(fd->getParamDecl(i)->getType())) stream = StreamSym(call->getArg(i));
  }
  if (stream.empty()) {
    const Symbol handle = library.handle_type.empty() ? Symbol{} : Sym(first);
    if (handle.empty() || s_.values.count(handle.key + "@host") != 0) return;
    auto it = s_.values.find(LibraryStreamKey(handle));
    // Bound elsewhere: it may be any stream, this function's own included.
    stream = it != s_.values.end() ? it->second
                                   : Symbol{kAnyStream + LibraryStreamKey(handle), "the stream of `" + handle.text + "`"};
  }
  const std::string spelled(SpelledLibraryName(name));
  DeviceOp& op = NewOp(call, spelled, "`" + spelled + "`", stream);
  const int read_only = ReadOnlyLibraryArgument(name);
  for (unsigned i = 0; i < call->getNumArgs() && i < fd->getNumParams(); ++i) {
    const clang::ParmVarDecl* p = fd->getParamDecl(i);
    const clang::QualType t = p->getType();
    if (IsOpaqueHandle(t)) {
      // A descriptor of buffers: a `Const` one (cusparseConstDnVecDescr_t) is read.
      const Symbol descriptor = Sym(call->getArg(i));
      const AccessMode mode = t->getPointeeType().isConstQualified() ? AccessMode::kRead : AccessMode::kWrite;
      for (int k = 0; !descriptor.empty(); ++k) {
        auto it = s_.aliases.find(descriptor.key + "#" + std::to_string(k));
        if (it == s_.aliases.end()) break;
        BufferAccess a;
        a.ref = it->second;
        a.mode = mode;
        op.accesses.push_back(a);
      }
      continue;
    }
    if (!IsDataPointer(p) || IsHostDescriptor(call->getArg(i)->IgnoreParenCasts()->getType())) continue;
    const bool read = t->getPointeeType().isConstQualified() || static_cast<int>(i) == read_only;
    AddAccess(op, call->getArg(i), read ? AccessMode::kRead : AccessMode::kWrite, nullptr);
  }
  Issue(op);
}

}  // namespace streamcheck::lint
