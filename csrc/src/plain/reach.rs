//! What a checked kernel reaches: its call graph through the functions of the file and its
//! headers, read by name (an identifier of a reached function's head or body that names a
//! function of the program reaches every function of that name). A construct the executor
//! cannot model is refused only where the kernel reaches it; the functions it does not reach
//! that hold one are emptied, so the rest of the file still builds.

use super::Program;
use super::scan::{FnDef, Unsupported};
use std::collections::HashSet;

/// The functions the checked kernels reach, by name.
pub struct Reach {
    names: HashSet<String>,
    /// The macros named in reached code.
    used: HashSet<String>,
}

/// Whether `d` holds the byte `at` (its head or body).
fn holds(d: &FnDef, at: usize) -> bool {
    d.start <= at && at < d.end
}

impl Reach {
    /// The closure of `kernels` (unqualified names) over the program's functions.
    pub fn of(p: &Program, kernels: &[&str]) -> Reach {
        let defined: HashSet<&str> = p
            .files
            .iter()
            .flat_map(|f| &f.scan.fns)
            .filter(|d| !d.host)
            .map(|d| d.name.as_str())
            .collect();
        let mut names: HashSet<String> = kernels.iter().map(|k| k.to_string()).collect();
        let mut used = HashSet::new();
        loop {
            let mut grew = false;
            for d in p.files.iter().flat_map(|f| &f.scan.fns) {
                if d.host || !(names.contains(&d.name) || d.name == "operator") {
                    continue;
                }
                for id in &d.idents {
                    used.insert(id.clone());
                    if defined.contains(id.as_str()) && !names.contains(id) {
                        names.insert(id.clone());
                        grew = true;
                    }
                }
            }
            if !grew {
                return Reach { names, used };
            }
        }
    }

    /// Whether the kernels reach `d` (an operator is taken as reached: it is called by its
    /// class's name or an expression, not its own).
    fn reaches(&self, d: &FnDef) -> bool {
        !d.host && (self.names.contains(&d.name) || d.name == "operator")
    }

    /// Whether `u` of file `f` is refused: inside a function, where the kernels reach that
    /// function; in a macro, where reached code names the macro; elsewhere, unless it parses.
    fn refuses<'a>(&self, p: &'a Program, f: usize, u: &Unsupported) -> Option<Option<&'a str>> {
        if let Some(d) = p.files[f].scan.fns.iter().find(|d| holds(d, u.at)) {
            return self.reaches(d).then_some(Some(d.name.as_str()));
        }
        match &u.key {
            Some(k) => self.used.contains(k).then_some(None),
            None => (!u.parses).then_some(None),
        }
    }

    /// The constructs the kernels reach, in file and source order, each with its file and the
    /// function holding it.
    pub fn refused<'a>(&self, p: &'a Program) -> Vec<(usize, &'a Unsupported, Option<String>)> {
        let mut out = Vec::new();
        for (f, file) in p.files.iter().enumerate() {
            let mut here: Vec<&Unsupported> = file.scan.unsupported.iter().collect();
            here.sort_by_key(|u| u.at);
            for u in here {
                if let Some(via) = self.refuses(p, f, u) {
                    out.push((f, u, via.map(str::to_string)));
                }
            }
        }
        out
    }

    /// The bodies of file `f` to empty: functions the kernels do not reach that hold a
    /// construct the executor cannot model, or name a macro that does.
    pub fn blanks(&self, p: &Program, f: usize) -> Vec<(usize, usize)> {
        let keys: HashSet<&str> = p
            .files
            .iter()
            .flat_map(|f| &f.scan.unsupported)
            .filter_map(|u| u.key.as_deref())
            .collect();
        let scan = &p.files[f].scan;
        scan.fns
            .iter()
            .filter(|d| !self.reaches(d) && !d.host && d.close > d.open)
            .filter(|d| {
                scan.unsupported.iter().any(|u| holds(d, u.at))
                    || d.idents.iter().any(|i| keys.contains(i.as_str()))
            })
            .map(|d| (d.open, d.close))
            .collect()
    }
}
