// Which file a path names, by device and inode rather than by spelling: an
// output must never be one of the inputs, however the two were written.
#pragma once

#include <string>

namespace streamcheck::store {

// Whether two paths name the same file. False when either does not exist.
bool SameFile(const std::string& a, const std::string& b);

}  // namespace streamcheck::store
