// CUDA calls made through pointers the program asked the driver for
// (cudaGetDriverEntryPoint, cuGetProcAddress, or a wrapper of them taking the
// call's name): NVIDIA Warp loads every driver call so
// (`get_driver_entry_point("cuStreamSynchronize", 2000, &(void*&)pfn)`), and
// a synchronize through such a pointer is a synchronize. Found once per
// translation unit: a call that hands a string literal naming a modeled CUDA
// call together with the address of a function-pointer variable binds that
// variable to the call; a call through the variable is then that call.
#pragma once

#include <map>
#include <optional>
#include <string>

#include <clang/AST/ASTContext.h>
#include <clang/AST/Decl.h>
#include <clang/AST/Expr.h>

namespace streamcheck::lint {

class DriverEntryPoints {
 public:
  // The modeled CUDA call `call` makes through a bound pointer variable; "" when none.
  std::string CalledThrough(const clang::CallExpr* call, clang::ASTContext& ast);
  // What a test of a bound pointer (`pfn`, `!pfn`, `pfn != nullptr`) is
  // taken to be: the pointer as given. Warp's `return pfn ? pfn(s) :
  // DRIVER_ENTRY_POINT_ERROR;` then synchronizes; the null branch is the
  // program's failure (the driver lacked the call), not a way around it.
  std::optional<bool> TestOfBoundPointer(const clang::Expr* cond, clang::ASTContext& ast);

 private:
  void Find(clang::ASTContext& ast);
  // The call a function-pointer variable `e` names is bound to; null: none.
  const std::string* BoundName(const clang::Expr* e, clang::ASTContext& ast);
  bool Bound(const clang::Expr* e, clang::ASTContext& ast);
  bool found_ = false;
  std::map<const clang::VarDecl*, std::string> bound_;
};

}  // namespace streamcheck::lint
