//! placeholder until the CPU oracle lands
