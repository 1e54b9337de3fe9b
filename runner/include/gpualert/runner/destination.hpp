#pragma once
// Where a program's stdout and stderr lead, seen from their descriptors: when
// both reach one ordered destination (one open file, 2>&1, one terminal, a
// file opened twice for appending), a capture must carry them through one
// channel, or it reorders what the user would have seen.
namespace gpualert::runner {

// True when A and B are the same open file description (as after dup or 2>&1).
// Uses kcmp; without it (or with TRY_KCMP false, for tests) falls back to
// comparing inode, status flags and offset.
bool same_open_file(int a, int b, bool try_kcmp = true);

// True when writes to A and B form one ordered sequence: the same open file,
// the same file opened twice for appending, or the same pipe, socket or terminal.
bool one_destination(int a, int b);

}  // namespace gpualert::runner
