// Reading IDX files, the format of the MNIST and Fashion-MNIST data sets (LeCun et al., "THE
// MNIST DATABASE of handwritten digits", file-format section). An IDX file is
//   offset 0: magic number, big-endian u32 = 0x0000 TT DD (TT the element type, DD the number of
//             dimensions); only TT = 0x08 (unsigned byte) is used by these data sets,
//   offset 4: DD sizes, big-endian u32 each,
//   then the elements, row-major (the last dimension varies fastest), nothing after them.
// Labels files are 0x00000801 (one dimension: the item count), images files 0x00000803 (count,
// rows, columns). Files whose name ends in ".gz" are decompressed with zlib (gzopen/gzread through
// read_file_bytes), so the data sets can be read as distributed.
//
// Everything is validated: the magic number, every size (> 0), the declared element count against
// the bytes actually present (a truncated file or trailing bytes are refused, not silently cut),
// each label against the allowed range, and, for an images/labels pair, equal item counts.
// Malformed content gives DataError (65) naming the file, the byte offset or field and what was
// expected; a missing or unreadable file gives NoInputError (66).
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace dpmcmc {

// Images of an IDX3 unsigned-byte file: pixel (r, c) of image i is
// pixels[(i * rows + r) * cols + c].
struct IdxImages {
  std::size_t count = 0;
  std::size_t rows = 0;
  std::size_t cols = 0;
  std::vector<std::uint8_t> pixels;
};

// Images with their labels (labels.size() == images.count).
struct IdxLabeledImages {
  IdxImages images;
  std::vector<std::uint8_t> labels;
};

// Parses the bytes of an images file (already decompressed); `source` names it in messages.
IdxImages parse_idx_images(std::string_view bytes, const std::string& source);
// Parses the bytes of a labels file; every label must be ≤ max_label.
std::vector<std::uint8_t> parse_idx_labels(std::string_view bytes, const std::string& source,
                                           int max_label = 9);

IdxImages read_idx_images(const std::filesystem::path& path);
std::vector<std::uint8_t> read_idx_labels(const std::filesystem::path& path, int max_label = 9);
// Both files of a data split; DataError naming both files when their item counts differ.
IdxLabeledImages read_idx_labeled(const std::filesystem::path& images_path,
                                  const std::filesystem::path& labels_path, int max_label = 9);

}  // namespace dpmcmc
