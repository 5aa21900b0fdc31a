// nvcc accepts a braced list as a kernel launch's configuration argument
// (`k<<<grid, {32, 32, 1}, 0, s>>>(...)`, dim3's initializer); clang's parser
// of `<<<...>>>` takes expressions only and stops with "expected expression",
// so the function holding the launch, often `main`, would go unanalysed.
#pragma once

#include <optional>
#include <string>

#include <llvm/ADT/StringRef.h>

namespace streamcheck::lint {

// The text with each braced launch-configuration argument's braces made
// parentheses (`(32, 32, 1)`, a comma expression of the same columns: the
// dimensions play no part in stream order), or nullopt when it has none.
// Comments and string literals are skipped.
std::optional<std::string> BracedLaunchConfigAsParens(llvm::StringRef text);

}  // namespace streamcheck::lint
