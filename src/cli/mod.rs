//! The `wavekit` command line (info, verify, bench, show).
