//! The `wavekit` binary: see `wavekit --help` and src/cli.

fn main() -> std::process::ExitCode {
    wavekit::cli::main(std::env::args_os())
}
