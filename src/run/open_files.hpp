// The open-file limit a run needs: every chain keeps its files open while it runs, so a large
// --chains once failed half-way with "Too many open files" and left thousands of .part files.
#pragma once

namespace dpmcmc {

// Files a chain keeps open at once: its draws, its curator-only columns, its checkpoint rows.
inline constexpr int kOpenFilesPerChain = 3;

// Makes sure this process may open the files of `chains` chains (plus a margin for the data, the
// report, the ledger and the libraries): raises the soft RLIMIT_NOFILE towards the hard limit if
// needed (no privilege needed), else UsageError naming --chains with the largest count that fits,
// before anything is written.
void reserve_open_files(int chains);

}  // namespace dpmcmc
