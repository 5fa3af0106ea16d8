#include "data/idx_reader.hpp"

#include <fmt/format.h>

#include <limits>

#include "core/error.hpp"
#include "data/file_bytes.hpp"

namespace dpmcmc {
namespace {

constexpr std::uint32_t kLabelsMagic = 0x00000801;  // unsigned byte, 1 dimension
constexpr std::uint32_t kImagesMagic = 0x00000803;  // unsigned byte, 3 dimensions

std::uint32_t big_endian_u32(std::string_view bytes, std::size_t offset) {
  const auto b = [&](std::size_t k) {
    return static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[offset + k]));
  };
  return (b(0) << 24) | (b(1) << 16) | (b(2) << 8) | b(3);
}

// Checks the magic number and returns the dimension sizes (each > 0).
std::vector<std::uint32_t> read_header(std::string_view bytes, const std::string& source,
                                       std::uint32_t magic, std::string_view kind,
                                       const std::vector<std::string_view>& dim_names) {
  const std::size_t header = 4 + 4 * dim_names.size();
  if (bytes.size() < 4) {
    throw DataError(fmt::format(
        "IDX file '{}': {} bytes, too short for the 4-byte magic number at offset 0 (expected "
        "0x{:08x}, IDX {})",
        source, bytes.size(), magic, kind));
  }
  const std::uint32_t got = big_endian_u32(bytes, 0);
  if (got != magic) {
    throw DataError(fmt::format(
        "IDX file '{}', offset 0: magic number 0x{:08x}, expected 0x{:08x} (IDX {}: unsigned "
        "bytes, {} dimension(s))",
        source, got, magic, kind, dim_names.size()));
  }
  if (bytes.size() < header) {
    throw DataError(fmt::format(
        "IDX file '{}' is truncated: {} bytes, expected a header of {} bytes (magic number and {} "
        "dimension size(s))",
        source, bytes.size(), header, dim_names.size()));
  }
  std::vector<std::uint32_t> dims;
  for (std::size_t k = 0; k < dim_names.size(); ++k) {
    const std::size_t offset = 4 + 4 * k;
    const std::uint32_t n = big_endian_u32(bytes, offset);
    if (n == 0) {
      throw DataError(fmt::format("IDX file '{}', offset {}: dimension {} ({}) is 0, expected > 0",
                                  source, offset, k + 1, dim_names[k]));
    }
    dims.push_back(n);
  }
  return dims;
}

// Checks that exactly `elements` bytes follow the header.
void check_payload(std::string_view bytes, const std::string& source, std::size_t header,
                   std::uint64_t elements, std::string_view what) {
  const std::uint64_t present = bytes.size() - header;
  if (present < elements) {
    throw DataError(fmt::format(
        "IDX file '{}' is truncated: the header declares {} bytes of {} from offset {}, only {} "
        "are present (the file ends at offset {})",
        source, elements, what, header, present, bytes.size()));
  }
  if (present > elements) {
    throw DataError(fmt::format(
        "IDX file '{}' has {} trailing byte(s) from offset {}: the header declares {} bytes of {} "
        "from offset {}, expected the file to end there",
        source, present - elements, header + elements, elements, what, header));
  }
}

}  // namespace

IdxImages parse_idx_images(std::string_view bytes, const std::string& source) {
  const auto dims =
      read_header(bytes, source, kImagesMagic, "images", {"number of images", "rows", "columns"});
  // Each size is < 2^32, so count·rows·cols may exceed 2^64: check before multiplying.
  const std::uint64_t per_image = std::uint64_t{dims[1]} * dims[2];
  if (dims[0] > std::numeric_limits<std::uint64_t>::max() / per_image ||
      dims[0] * per_image > bytes.size()) {
    throw DataError(fmt::format(
        "IDX file '{}' is truncated: the header declares {} images of {}x{} pixels from offset "
        "16, the file has only {} bytes",
        source, dims[0], dims[1], dims[2], bytes.size()));
  }
  check_payload(bytes, source, 16, dims[0] * per_image, "pixels");
  IdxImages images;
  images.count = dims[0];
  images.rows = dims[1];
  images.cols = dims[2];
  const auto* first = reinterpret_cast<const std::uint8_t*>(bytes.data()) + 16;
  images.pixels.assign(first, first + images.count * per_image);
  return images;
}

std::vector<std::uint8_t> parse_idx_labels(std::string_view bytes, const std::string& source,
                                           int max_label) {
  const auto dims = read_header(bytes, source, kLabelsMagic, "labels", {"number of labels"});
  check_payload(bytes, source, 8, dims[0], "labels");
  const auto* first = reinterpret_cast<const std::uint8_t*>(bytes.data()) + 8;
  std::vector<std::uint8_t> labels(first, first + dims[0]);
  for (std::size_t i = 0; i < labels.size(); ++i) {
    if (labels[i] > max_label) {
      throw DataError(
          fmt::format("IDX file '{}', offset {}: label {} of item {} (0-based), expected 0 to {}",
                      source, 8 + i, labels[i], i, max_label));
    }
  }
  return labels;
}

IdxImages read_idx_images(const std::filesystem::path& path) {
  return parse_idx_images(read_file_bytes(path), path.string());
}

std::vector<std::uint8_t> read_idx_labels(const std::filesystem::path& path, int max_label) {
  return parse_idx_labels(read_file_bytes(path), path.string(), max_label);
}

IdxLabeledImages read_idx_labeled(const std::filesystem::path& images_path,
                                  const std::filesystem::path& labels_path, int max_label) {
  IdxLabeledImages out{read_idx_images(images_path), read_idx_labels(labels_path, max_label)};
  if (out.labels.size() != out.images.count) {
    throw DataError(fmt::format(
        "IDX files '{}' and '{}' do not match: {} images but {} labels, expected one label per "
        "image",
        images_path.string(), labels_path.string(), out.images.count, out.labels.size()));
  }
  return out;
}

}  // namespace dpmcmc
