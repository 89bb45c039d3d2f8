//! `wavekit show PRIMITIVE`: the lane diagram of one primitive call, as in the seeds' figures,
//! with every output value computed by the chosen backend through the validated API.

use crate::args::{MaskSpec, PredSpec, ValuesSpec};
use crate::error::{CliError, CliResult};
use crate::registry::{BackendKind, with_backend};
use wavekit::api::{VoteResult, WarpPrimitives};
use wavekit::lanes::{shfl_source, transpose_source};
use wavekit::mask::LaneMask;
use wavekit::op::ReduceOp;
use wavekit::width::WarpWidth;
use wavekit::{ScanKind, Shfl, Vote};

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
#[value(rename_all = "snake_case")]
pub enum Primitive {
    Shfl,
    ShflUp,
    ShflDown,
    ShflXor,
    All,
    Any,
    Uni,
    Ballot,
    MatchAny,
    MatchAll,
    Activemask,
    /// Seed 000's `__syncwarp` transpose through shared memory.
    Transpose,
    TileShfl,
    TileShflUp,
    TileShflDown,
    TileShflXor,
    TileBallot,
    TileReduce,
    WarpReduce,
    WarpScan,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum OpArg {
    Sum,
    Product,
    Min,
    Max,
    Bitand,
    Bitor,
    Bitxor,
}

impl OpArg {
    pub fn op(self) -> ReduceOp {
        match self {
            OpArg::Sum => ReduceOp::Sum,
            OpArg::Product => ReduceOp::Product,
            OpArg::Min => ReduceOp::Min,
            OpArg::Max => ReduceOp::Max,
            OpArg::Bitand => ReduceOp::BitAnd,
            OpArg::Bitor => ReduceOp::BitOr,
            OpArg::Bitxor => ReduceOp::BitXor,
        }
    }
}

/// Everything `show` needs, already parsed.
#[derive(Clone, Debug)]
pub struct Request {
    pub primitive: Primitive,
    pub backend: BackendKind,
    pub warp: WarpWidth,
    /// Shuffle argument: source lane, delta or xor mask, any i32. Default 0 for `shfl`, else 1.
    pub arg: Option<i32>,
    /// Shuffle or warp-collective sub-width; default the warp width.
    pub width: Option<u32>,
    pub tile: u32,
    pub mask: MaskSpec,
    pub values: ValuesSpec,
    pub pred: PredSpec,
    pub op: OpArg,
    pub exclusive: bool,
    /// Threads in the launch; default one warp.
    pub threads: Option<usize>,
}

pub fn run(req: &Request) -> CliResult<String> {
    let found = req.backend.open(Some(req.warp))?;
    let any = found.first().ok_or_else(|| {
        CliError::Usage(format!(
            "no {} instance runs warp width {}",
            req.backend.name(),
            req.warp
        ))
    })?;
    let diagram = with_backend!(any, |b| diagram(b, req))?;
    Ok(diagram.render())
}

/// One labelled row of cells, one cell a thread.
type Line = (String, Vec<String>);

pub struct Diagram {
    title: String,
    warp: u32,
    lines: Vec<Line>,
    notes: Vec<String>,
}

const UNDEFINED: &str = "--";

fn cell<T: ToString>(v: Option<T>) -> String {
    v.map_or_else(|| UNDEFINED.to_string(), |v| v.to_string())
}

fn hex(bits: u64, lanes: u32) -> String {
    format!("{bits:#0w$x}", w = 2 + (lanes as usize).div_ceil(4))
}

pub fn diagram<B: WarpPrimitives>(b: &B, req: &Request) -> CliResult<Diagram> {
    let warp = b.warp_width();
    let lanes = warp.lanes();
    let threads = req.threads.unwrap_or(lanes as usize);
    let lane = |t: usize| (t % lanes as usize) as u32;
    let vals: Vec<i32> = (0..threads).map(|t| req.values.value(t, lane(t))).collect();
    let preds: Vec<bool> = vals.iter().map(|&v| req.pred.test(v)).collect();
    let mask = req.mask.resolve(warp)?;
    let member = |t: usize| {
        let w = t / lanes as usize;
        let live = threads - w * lanes as usize;
        mask.contains(lane(t)) && (lane(t) as usize) < live
    };
    let mask_line: Line = (
        "mask".into(),
        (0..threads)
            .map(|t| if member(t) { "#" } else { "." }.to_string())
            .collect(),
    );
    let in_line: Line = ("in".into(), vals.iter().map(i32::to_string).collect());
    let pred_line: Line = (
        "pred".into(),
        preds.iter().map(|&p| u8::from(p).to_string()).collect(),
    );
    let src_line = |src: &dyn Fn(u32) -> u32, shown: &dyn Fn(usize) -> bool| -> Line {
        (
            "src".into(),
            (0..threads)
                .map(|t| cell(shown(t).then(|| src(lane(t)))))
                .collect(),
        )
    };
    let mask_desc = format!("{} {}", mask_name(req.mask), hex(mask.bits(), lanes));
    let values_desc = values_name(&req.values);
    let pred_desc = pred_name(req.pred);
    let width = req.width.unwrap_or(lanes);
    let op = req.op.op();
    let mut notes = Vec::new();

    let (title, lines) = match req.primitive {
        Primitive::Shfl | Primitive::ShflUp | Primitive::ShflDown | Primitive::ShflXor => {
            let (kind, name, arg_name) = shfl_names(req.primitive);
            let arg = req.arg.unwrap_or(if kind == Shfl::Idx { 0 } else { 1 });
            let out = b.shfl(kind, &vals, arg, width, mask)?;
            let title = format!(
                "{name}({mask_desc}, v = {values_desc}, {arg_name} = {arg}, width = {width})"
            );
            let src = src_line(&|l| shfl_source(kind, l, arg, width, warp), &member);
            (
                title,
                vec![
                    mask_line,
                    in_line,
                    src,
                    ("out".into(), out.into_iter().map(cell).collect()),
                ],
            )
        }
        Primitive::All | Primitive::Any | Primitive::Uni | Primitive::Ballot => {
            let (vote, name) = match req.primitive {
                Primitive::All => (Vote::All, "__all_sync"),
                Primitive::Any => (Vote::Any, "__any_sync"),
                Primitive::Uni => (Vote::Uni, "__uni_sync"),
                _ => (Vote::Ballot, "__ballot_sync"),
            };
            let out = b.vote(vote, &preds, mask)?;
            warp_notes(
                &mut notes,
                threads,
                lanes,
                &out,
                |r| vote_text(*r, lanes),
                name,
            );
            let title = format!("{name}({mask_desc}, pred = {pred_desc}), v = {values_desc}");
            let out_line = out
                .iter()
                .map(|r| cell(r.map(|r| vote_text(r, lanes))))
                .collect();
            (
                title,
                vec![mask_line, in_line, pred_line, ("out".into(), out_line)],
            )
        }
        Primitive::MatchAny => {
            let out = b.match_any(&vals, mask)?;
            let title = format!("__match_any_sync({mask_desc}, v = {values_desc})");
            let out_line = out
                .iter()
                .map(|m| cell(m.map(|m| hex(m.bits(), lanes))))
                .collect();
            (title, vec![mask_line, in_line, ("out".into(), out_line)])
        }
        Primitive::MatchAll => {
            let out = b.match_all(&vals, mask)?;
            let title = format!("__match_all_sync({mask_desc}, v = {values_desc}, &pred)");
            let text =
                |(m, p): (LaneMask, bool)| format!("{}/{}", hex(m.bits(), lanes), u8::from(p));
            notes.push("out = returned mask / pred".into());
            let out_line = out.iter().map(|r| cell(r.map(text))).collect();
            (title, vec![mask_line, in_line, ("out".into(), out_line)])
        }
        Primitive::Activemask => {
            let out = b.activemask(threads, mask)?;
            let title = format!("__activemask() inside a branch taken by the lanes of {mask_desc}");
            notes.push("guaranteed: the caller and only branch lanes; under independent thread scheduling it may hold fewer".into());
            let out_line = out
                .iter()
                .map(|m| cell(m.map(|m| hex(m.bits(), lanes))))
                .collect();
            let branch = ("branch".to_string(), mask_line.1);
            (title, vec![branch, ("out".into(), out_line)])
        }
        Primitive::Transpose => {
            let rows = lanes / 8;
            let out = b.syncwarp_transpose(&vals, mask)?;
            let title = format!(
                "smem[lane] = v; __syncwarp({mask_desc}); v = smem[(lane % {rows}) * 8 + lane / {rows}], v = {values_desc}"
            );
            let src = src_line(&|l| transpose_source(l, warp), &member);
            (
                title,
                vec![
                    mask_line,
                    in_line,
                    src,
                    ("out".into(), out.into_iter().map(cell).collect()),
                ],
            )
        }
        Primitive::TileShfl
        | Primitive::TileShflUp
        | Primitive::TileShflDown
        | Primitive::TileShflXor => {
            let tile = req.tile;
            let (kind, name, arg_name) = shfl_names(req.primitive);
            let arg = req.arg.unwrap_or(if kind == Shfl::Idx { 0 } else { 1 });
            let out = b.tile_shfl(tile, kind, &vals, arg)?;
            let name = name.trim_start_matches("__").trim_end_matches("_sync");
            let title = format!(
                "tiled_partition<{tile}>: tile.{name}(v = {values_desc}, {arg_name} = {arg})"
            );
            let full = full_tiles(threads, tile);
            let src = src_line(&|l| shfl_source(kind, l, arg, tile, warp), &|t| t < full);
            let out_line = out.into_iter().map(cell).collect();
            (
                title,
                vec![
                    tile_line(threads, tile),
                    in_line,
                    src,
                    ("out".into(), out_line),
                ],
            )
        }
        Primitive::TileBallot => {
            let tile = req.tile;
            let out = b.tile_vote(tile, Vote::Ballot, &preds)?;
            let title = format!(
                "tiled_partition<{tile}>: tile.ballot(pred = {pred_desc}), v = {values_desc}"
            );
            notes.push("tile ballot bits are tile ranks".into());
            let out_line = out
                .iter()
                .map(|r| cell(r.map(|r| vote_text(r, tile))))
                .collect();
            (
                title,
                vec![
                    tile_line(threads, tile),
                    in_line,
                    pred_line,
                    ("out".into(), out_line),
                ],
            )
        }
        Primitive::TileReduce => {
            let tile = req.tile;
            let out = b.tile_reduce(tile, op, &vals)?;
            let title = format!(
                "tiled_partition<{tile}>: cg::reduce(tile, v = {values_desc}, {})",
                op.name()
            );
            (
                title,
                vec![
                    tile_line(threads, tile),
                    in_line,
                    ("out".into(), out.into_iter().map(cell).collect()),
                ],
            )
        }
        Primitive::WarpReduce => {
            let out = b.warp_reduce(&vals, width, op)?;
            let title = format!(
                "warp reduce {} over segments of {width} lanes, v = {values_desc}",
                op.name()
            );
            notes.push(format!(
                "one result per segment, shown at its first lane ({UNDEFINED} elsewhere)"
            ));
            let w = width as usize;
            let out_line = (0..threads)
                .map(|t| cell((t % w == 0).then(|| out[t / w])))
                .collect();
            (title, vec![in_line, ("out".into(), out_line)])
        }
        Primitive::WarpScan => {
            let kind = if req.exclusive {
                ScanKind::Exclusive
            } else {
                ScanKind::Inclusive
            };
            let out = b.warp_scan(&vals, width, op, kind)?;
            let which = if req.exclusive {
                "exclusive"
            } else {
                "inclusive"
            };
            let title = format!(
                "warp {which} scan {} over segments of {width} lanes, v = {values_desc}",
                op.name()
            );
            (
                title,
                vec![
                    in_line,
                    (
                        "out".into(),
                        out.into_iter().map(|v| v.to_string()).collect(),
                    ),
                ],
            )
        }
    };
    notes.push(format!("{UNDEFINED} = no value: not a member, or read a lane that is not one (undefined on hardware)"));
    Ok(Diagram {
        title: format!("{title} on {}", b.name()),
        warp: lanes,
        lines,
        notes,
    })
}

fn shfl_names(p: Primitive) -> (Shfl, &'static str, &'static str) {
    match p {
        Primitive::Shfl | Primitive::TileShfl => (Shfl::Idx, "__shfl_sync", "srcLane"),
        Primitive::ShflUp | Primitive::TileShflUp => (Shfl::Up, "__shfl_up_sync", "delta"),
        Primitive::ShflDown | Primitive::TileShflDown => (Shfl::Down, "__shfl_down_sync", "delta"),
        _ => (Shfl::Xor, "__shfl_xor_sync", "laneMask"),
    }
}

fn full_tiles(threads: usize, tile: u32) -> usize {
    threads / tile as usize * tile as usize
}

fn tile_line(threads: usize, tile: u32) -> Line {
    (
        "tile".into(),
        (0..threads)
            .map(|t| (t / tile as usize).to_string())
            .collect(),
    )
}

fn vote_text(r: VoteResult, lanes: u32) -> String {
    match r {
        VoteResult::Bool(b) => u8::from(b).to_string(),
        VoteResult::Ballot(m) => hex(m.bits(), lanes),
    }
}

/// Every member of a warp gets the same vote: say it once per warp, with the lanes drawn.
fn warp_notes<R>(
    notes: &mut Vec<String>,
    threads: usize,
    lanes: u32,
    out: &[Option<R>],
    text: impl Fn(&R) -> String,
    name: &str,
) {
    for (w, chunk) in out.chunks(lanes as usize).enumerate() {
        let prefix = if threads > lanes as usize {
            format!("warp {w}: ")
        } else {
            String::new()
        };
        if let Some(r) = chunk.iter().flatten().next() {
            notes.push(format!("{prefix}{name} = {}", text(r)));
        }
    }
}

fn mask_name(m: MaskSpec) -> String {
    match m {
        MaskSpec::Full => "full".into(),
        MaskSpec::Empty => "none".into(),
        MaskSpec::Even => "even".into(),
        MaskSpec::Odd => "odd".into(),
        MaskSpec::Lower => "lower".into(),
        MaskSpec::Upper => "upper".into(),
        MaskSpec::Lane(l) => format!("lane:{l}"),
        MaskSpec::Bits(_) => "mask".into(),
    }
}

fn values_name(v: &ValuesSpec) -> String {
    match v {
        ValuesSpec::Lanes => "lane".into(),
        ValuesSpec::Mod(k) => format!("lane % {k}"),
        ValuesSpec::Div(k) => format!("lane / {k}"),
        ValuesSpec::List(l) => format!(
            "[{}]",
            l.iter().map(i32::to_string).collect::<Vec<_>>().join(",")
        ),
    }
}

fn pred_name(p: PredSpec) -> String {
    match p {
        PredSpec::True => "true".into(),
        PredSpec::False => "false".into(),
        PredSpec::Odd => "v odd".into(),
        PredSpec::Even => "v even".into(),
        PredSpec::Lt(n) => format!("v < {n}"),
        PredSpec::Ge(n) => format!("v >= {n}"),
        PredSpec::Eq(n) => format!("v == {n}"),
    }
}

/// Diagrams stay within about this many columns.
const TARGET_COLUMNS: usize = 100;

impl Diagram {
    pub fn render(&self) -> String {
        let threads = self.lines.first().map_or(0, |l| l.1.len());
        let label_w = self
            .lines
            .iter()
            .map(|l| l.0.len())
            .chain(["lane".len()])
            .max()
            .unwrap_or(0);
        let cell_w = self
            .lines
            .iter()
            .flat_map(|l| l.1.iter().map(String::len))
            .chain([2])
            .max()
            .unwrap_or(2);
        // A power of two that divides the warp, so no row crosses a warp or a 16-lane half.
        let fit = ((TARGET_COLUMNS - label_w) / (cell_w + 1)).max(1);
        let per_row = (1usize << fit.ilog2()).min(self.warp as usize);
        let lanes = self.warp as usize;
        let mut out = format!("{}\n", self.title);
        for start in (0..threads).step_by(per_row) {
            let end = (start + per_row).min(threads);
            out.push('\n');
            if threads > lanes && start % lanes == 0 {
                out.push_str(&format!("warp {}\n", start / lanes));
            }
            let lane_ids: Vec<String> = (start..end).map(|t| (t % lanes).to_string()).collect();
            for (label, cells) in std::iter::once(("lane", &lane_ids))
                .chain(self.lines.iter().map(|l| (l.0.as_str(), &l.1)))
            {
                let row: Vec<String> = cells[if label == "lane" {
                    0..lane_ids.len()
                } else {
                    start..end
                }]
                .iter()
                .map(|c| format!("{c:>cell_w$}"))
                .collect();
                out.push_str(&format!("{label:<label_w$} {}\n", row.join(" ")));
            }
        }
        out.push('\n');
        for n in &self.notes {
            out.push_str(&format!("{n}\n"));
        }
        out
    }
}
