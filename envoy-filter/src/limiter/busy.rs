//! The paths a worker has something to do for: requests waiting, slots kept or to be given back, waiters to
//! publish, waiters seen on another worker. The tick and the checks made on every request go through these
//! alone, so that their cost follows the paths in use rather than the number of paths configured.

use crate::per_path::{OfPath, PathIndex};

/// A set of path indexes: insertion and membership in constant time, iteration over the members only.
#[derive(Debug, Clone)]
pub struct Busy {
    members: Vec<PathIndex>,
    present: Vec<bool>,
}

impl Busy {
    pub fn new(paths: usize) -> Busy {
        Busy { members: Vec::new(), present: vec![false; paths] }
    }

    pub fn insert(&mut self, path: PathIndex) {
        if let Some(present) = self.present.of_mut(path) {
            if !*present {
                *present = true;
                self.members.push(path);
            }
        }
    }

    /// The members, lowest index first: the order in which paths are served.
    pub fn sorted(&self) -> Vec<PathIndex> {
        let mut members = self.members.clone();
        members.sort_unstable();
        members
    }

    pub fn iter(&self) -> impl Iterator<Item = PathIndex> + '_ {
        self.members.iter().copied()
    }

    /// Keeps the members `keep` says still have something to do.
    pub fn retain(&mut self, mut keep: impl FnMut(PathIndex) -> bool) {
        let present = &mut self.present;
        self.members.retain(|path| {
            let kept = keep(*path);
            if !kept {
                if let Some(p) = present.of_mut(*path) {
                    *p = false;
                }
            }
            kept
        });
    }

    #[cfg(test)]
    pub fn contains(&self, path: PathIndex) -> bool {
        self.present.of(path).copied().unwrap_or(false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn members_come_once_and_leave_when_told() {
        let mut busy = Busy::new(5);
        for path in [3, 1, 3, 9] {
            busy.insert(PathIndex(path));
        }
        assert_eq!(busy.sorted(), vec![PathIndex(1), PathIndex(3)], "9 is not a path");
        busy.retain(|path| path != PathIndex(3));
        assert!(!busy.contains(PathIndex(3)) && busy.contains(PathIndex(1)));
        busy.insert(PathIndex(3));
        assert_eq!(busy.sorted(), vec![PathIndex(1), PathIndex(3)]);
    }
}
