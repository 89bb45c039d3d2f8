//! Launch mode "one process per GPU": this rank's place from the environment, as torchrun and
//! MPI launchers set it, and the NCCL unique id handed from rank 0 to the others over a file or
//! loopback/LAN TCP. Pure std, so it is tested without a GPU.

use super::ffi::{UNIQUE_ID_BYTES, UniqueId};
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::time::{Duration, Instant};
use wavekit_core::{Result, WavekitError};

/// This process's rank, the world size and its GPU on this host.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Launch {
    /// This process's rank, `0..world`.
    pub rank: usize,
    /// Ranks (processes) in the job.
    pub world: usize,
    /// This process's index on its host: the GPU it should open.
    pub local_rank: usize,
    /// How the unique id travels from rank 0.
    pub exchange: Exchange,
}

/// How rank 0's unique id reaches the others.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Exchange {
    /// Rank 0 writes the id to this file (atomically); the others wait for it.
    File(PathBuf),
    /// Rank 0 listens on `addr:port`; the others connect and read the id.
    Tcp {
        /// Rank 0's address.
        addr: String,
        /// The port rank 0 listens on.
        port: u16,
    },
}

fn bad(reason: String) -> WavekitError {
    WavekitError::NoDevice {
        backend: "nccl",
        reason,
    }
}

impl Launch {
    /// Reads the launch from variables looked up by `var`: `RANK`, `WORLD_SIZE`, `LOCAL_RANK`
    /// (torchrun; `LOCAL_RANK` defaults to `RANK`) or `OMPI_COMM_WORLD_RANK`, `_SIZE`,
    /// `_LOCAL_RANK` (Open MPI). The id travels over `WAVEKIT_NCCL_ID_FILE` if set, else TCP
    /// to `MASTER_ADDR` (default 127.0.0.1) at `WAVEKIT_NCCL_ID_PORT` or `MASTER_PORT + 1`
    /// (torchrun's own store holds `MASTER_PORT`).
    pub fn from_vars(var: impl Fn(&str) -> Option<String>) -> Result<Launch> {
        let num = |name: &str| -> Result<Option<usize>> {
            var(name)
                .map(|v| {
                    v.trim()
                        .parse::<usize>()
                        .map_err(|_| bad(format!("{name}={v} is not a number")))
                })
                .transpose()
        };
        let (rank, world, local) = if let Some(rank) = num("RANK")? {
            let world = num("WORLD_SIZE")?.ok_or_else(|| bad("RANK without WORLD_SIZE".into()))?;
            (rank, world, num("LOCAL_RANK")?.unwrap_or(rank))
        } else if let Some(rank) = num("OMPI_COMM_WORLD_RANK")? {
            let world = num("OMPI_COMM_WORLD_SIZE")?
                .ok_or_else(|| bad("OMPI_COMM_WORLD_RANK without OMPI_COMM_WORLD_SIZE".into()))?;
            (
                rank,
                world,
                num("OMPI_COMM_WORLD_LOCAL_RANK")?.unwrap_or(rank),
            )
        } else {
            return Err(bad(
                "no rank in the environment: set RANK and WORLD_SIZE (torchrun, \
                 scripts/launch-local.sh) or run under mpirun"
                    .into(),
            ));
        };
        if world == 0 || rank >= world {
            return Err(bad(format!("rank {rank} is outside a world of {world}")));
        }
        let exchange = if let Some(f) = var("WAVEKIT_NCCL_ID_FILE") {
            Exchange::File(PathBuf::from(f))
        } else {
            let port = match num("WAVEKIT_NCCL_ID_PORT")? {
                Some(p) => p,
                None => num("MASTER_PORT")?.map(|p| p + 1).ok_or_else(|| {
                    bad("set WAVEKIT_NCCL_ID_FILE, WAVEKIT_NCCL_ID_PORT or MASTER_PORT".into())
                })?,
            };
            let port = u16::try_from(port).map_err(|_| bad(format!("port {port} is too large")))?;
            Exchange::Tcp {
                addr: var("MASTER_ADDR").unwrap_or_else(|| "127.0.0.1".into()),
                port,
            }
        };
        Ok(Launch {
            rank,
            world,
            local_rank: local,
            exchange,
        })
    }

    /// [`Launch::from_vars`] over the process environment.
    pub fn from_env() -> Result<Launch> {
        Launch::from_vars(|k| std::env::var(k).ok())
    }

    /// Rank 0 publishes `make_id()`'s id; every rank returns it. Waits at most `timeout` for
    /// rank 0 (other ranks) or for the other ranks to connect (rank 0, TCP).
    pub fn share_id(
        &self,
        make_id: impl FnOnce() -> Result<UniqueId>,
        timeout: Duration,
    ) -> Result<UniqueId> {
        let deadline = Instant::now() + timeout;
        let lost = |what: String| WavekitError::RankLost {
            peer: Some(0),
            reason: what,
        };
        match &self.exchange {
            Exchange::File(path) if self.rank == 0 => {
                let id = make_id()?;
                let tmp = path.with_extension(format!("tmp{}", std::process::id()));
                std::fs::write(&tmp, id.internal)
                    .and_then(|()| std::fs::rename(&tmp, path))
                    .map_err(|e| bad(format!("writing the NCCL id to {}: {e}", path.display())))?;
                Ok(id)
            }
            Exchange::File(path) => loop {
                if let Ok(bytes) = std::fs::read(path)
                    && bytes.len() == UNIQUE_ID_BYTES
                {
                    let mut id = UniqueId {
                        internal: [0; UNIQUE_ID_BYTES],
                    };
                    id.internal.copy_from_slice(&bytes);
                    return Ok(id);
                }
                if Instant::now() >= deadline {
                    return Err(lost(format!("no NCCL id appeared in {}", path.display())));
                }
                std::thread::sleep(Duration::from_millis(20));
            },
            Exchange::Tcp { addr, port } if self.rank == 0 => {
                let listener = TcpListener::bind((addr.as_str(), *port))
                    .map_err(|e| bad(format!("listening on {addr}:{port}: {e}")))?;
                listener
                    .set_nonblocking(true)
                    .map_err(|e| bad(format!("{e}")))?;
                let id = make_id()?;
                let mut served = 0;
                while served + 1 < self.world {
                    match listener.accept() {
                        Ok((mut s, _)) => {
                            s.set_nonblocking(false)
                                .and_then(|()| s.write_all(&id.internal))
                                .map_err(|e| bad(format!("sending the NCCL id: {e}")))?;
                            served += 1;
                        }
                        Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                            if Instant::now() >= deadline {
                                return Err(WavekitError::RankLost {
                                    peer: None,
                                    reason: format!(
                                        "only {served} of {} ranks fetched the NCCL id from \
                                         {addr}:{port}",
                                        self.world - 1
                                    ),
                                });
                            }
                            std::thread::sleep(Duration::from_millis(10));
                        }
                        Err(e) => return Err(bad(format!("accepting on {addr}:{port}: {e}"))),
                    }
                }
                Ok(id)
            }
            Exchange::Tcp { addr, port } => loop {
                let got = TcpStream::connect((addr.as_str(), *port)).and_then(|mut s| {
                    s.set_read_timeout(Some(timeout))?;
                    let mut id = UniqueId {
                        internal: [0; UNIQUE_ID_BYTES],
                    };
                    s.read_exact(&mut id.internal)?;
                    Ok(id)
                });
                match got {
                    Ok(id) => return Ok(id),
                    Err(e) if Instant::now() >= deadline => {
                        return Err(lost(format!("no NCCL id from {addr}:{port}: {e}")));
                    }
                    Err(_) => std::thread::sleep(Duration::from_millis(20)),
                }
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn launch(vars: &[(&str, &str)]) -> Result<Launch> {
        let m: HashMap<String, String> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        Launch::from_vars(|k| m.get(k).cloned())
    }

    #[test]
    fn torchrun_and_mpi_variables() {
        let l = launch(&[
            ("RANK", "3"),
            ("WORLD_SIZE", "4"),
            ("LOCAL_RANK", "1"),
            ("MASTER_PORT", "29500"),
        ])
        .unwrap();
        assert_eq!((l.rank, l.world, l.local_rank), (3, 4, 1));
        assert_eq!(
            l.exchange,
            Exchange::Tcp {
                addr: "127.0.0.1".into(),
                port: 29501
            }
        );
        let l = launch(&[
            ("OMPI_COMM_WORLD_RANK", "0"),
            ("OMPI_COMM_WORLD_SIZE", "2"),
            ("OMPI_COMM_WORLD_LOCAL_RANK", "0"),
            ("WAVEKIT_NCCL_ID_FILE", "/tmp/x"),
        ])
        .unwrap();
        assert_eq!(l.exchange, Exchange::File("/tmp/x".into()));
        assert!(launch(&[("RANK", "2"), ("WORLD_SIZE", "2"), ("MASTER_PORT", "1")]).is_err());
        assert!(launch(&[("WORLD_SIZE", "2")]).is_err());
        assert!(launch(&[("RANK", "x"), ("WORLD_SIZE", "2")]).is_err());
    }

    fn share(exchange: Exchange, world: usize) -> Vec<Result<UniqueId>> {
        let id = UniqueId {
            internal: std::array::from_fn(|i| i as u8 ^ 0x5a),
        };
        std::thread::scope(|s| {
            let hs: Vec<_> = (0..world)
                .map(|rank| {
                    let l = Launch {
                        rank,
                        world,
                        local_rank: rank,
                        exchange: exchange.clone(),
                    };
                    s.spawn(move || l.share_id(|| Ok(id), Duration::from_secs(20)))
                })
                .collect();
            hs.into_iter()
                .map(|h| h.join().unwrap())
                .collect::<Vec<_>>()
        })
        .into_iter()
        .inspect(|r| {
            if let Ok(got) = r {
                assert_eq!(*got, id);
            }
        })
        .collect()
    }

    #[test]
    fn the_id_travels_over_a_file_and_over_tcp() {
        let dir = std::env::temp_dir().join(format!("wavekit-id-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("id");
        let _ = std::fs::remove_file(&file);
        assert!(share(Exchange::File(file), 4).iter().all(|r| r.is_ok()));
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let tcp = Exchange::Tcp {
            addr: "127.0.0.1".into(),
            port,
        };
        assert!(share(tcp, 3).iter().all(|r| r.is_ok()));
    }

    #[test]
    fn a_missing_rank_0_is_a_timeout_not_a_hang() {
        let l = Launch {
            rank: 1,
            world: 2,
            local_rank: 1,
            exchange: Exchange::File(std::env::temp_dir().join("wavekit-no-such-id")),
        };
        let e = l
            .share_id(|| unreachable!(), Duration::from_millis(100))
            .unwrap_err();
        assert!(
            matches!(e, WavekitError::RankLost { peer: Some(0), .. }),
            "{e}"
        );
    }
}
