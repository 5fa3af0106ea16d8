// A content hash of a dataset: what it is, not where it came from. A resumed run compares it with
// the hash saved at its checkpoint (run/checkpoint.hpp): continuing with the same noise on other
// rows would release the difference between them.
#pragma once

#include <string>

#include "data/dataset.hpp"

namespace dpmcmc {

// BLAKE2b-256 in hex of the column names and the values (their IEEE-754 bytes, little-endian,
// row by row): equal for the same rows in the same order, whatever file or format held them.
std::string content_hash(const Dataset& data);

}  // namespace dpmcmc
