//! What a command can fail with, so `main` prints one clean line and picks the exit code.

use std::fmt;
use wavekit::error::WavekitError;

#[derive(Debug)]
pub enum CliError {
    /// The library refused the request (bad width, mask, backend not built, device error).
    Wavekit(WavekitError),
    /// Writing output (e.g. the bench CSV) failed.
    Io { path: String, error: std::io::Error },
    /// A request the library cannot express as one of its errors (e.g. zero threads).
    Usage(String),
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CliError::Wavekit(e) => write!(f, "{e}"),
            CliError::Io { path, error } => write!(f, "{path}: {error}"),
            CliError::Usage(m) => f.write_str(m),
        }
    }
}

impl From<WavekitError> for CliError {
    fn from(e: WavekitError) -> Self {
        CliError::Wavekit(e)
    }
}

pub type CliResult<T> = std::result::Result<T, CliError>;
