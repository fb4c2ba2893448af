//! Compare-and-swap on one shared-data key: read, decide, write if nobody wrote in between, else read again.
//!
//! Every change to a shared value goes through [`update`], so that the retries, their bound and the token written
//! for a missing key are decided once.

use crate::host::{HostError, SharedStore};

/// How often a compare-and-swap is retried before the caller is told the key is contended.
pub const MAX_CAS_TRIES: usize = 64;

/// The CAS token written with a value that was read as missing. Envoy creates a missing key whatever the token,
/// but refuses a token other than the current one once the key exists; so if another worker created the key
/// in between, this write loses instead of overwriting what that worker wrote. Envoy hands out tokens from one
/// counter that starts at 1, so an existing key holds this exact token only after 2^32 - 1 writes, and only
/// until its next write.
pub const ABSENT_CAS: u32 = u32::MAX;

/// The token to write with after a read: the one read, or [`ABSENT_CAS`] for a missing key.
pub fn token(cas: Option<u32>) -> Option<u32> {
    Some(cas.unwrap_or(ABSENT_CAS))
}

/// What an update makes of the value it read.
pub enum Step<T> {
    /// Write these bytes; `T` is the answer once the write lands.
    Write(Vec<u8>, T),
    /// Nothing to write: the answer as it is.
    Done(T),
}

/// Reads `key` (`None` if missing), lets `step` decide, and writes its bytes if the key is unchanged since the
/// read; on a lost race, reads again. The answer of the step that wrote or finished, or `None` if every one of
/// [`MAX_CAS_TRIES`] writes lost its race.
pub fn update<T>(
    store: &dyn SharedStore,
    key: &str,
    mut step: impl FnMut(Option<&[u8]>) -> Step<T>,
) -> Result<Option<T>, HostError> {
    for _ in 0..MAX_CAS_TRIES {
        let read = store.get(key)?;
        let cas = read.as_ref().map(|(_, cas)| *cas);
        match step(read.as_ref().map(|(bytes, _)| bytes.as_slice())) {
            Step::Done(answer) => return Ok(Some(answer)),
            Step::Write(bytes, answer) => {
                if store.set(key, &bytes, token(cas))? {
                    return Ok(Some(answer));
                }
            }
        }
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::MemStore;

    fn add_one(value: Option<&[u8]>) -> Step<usize> {
        let n = value.map_or(0, <[u8]>::len);
        Step::Write(vec![0; n + 1], n + 1)
    }

    #[test]
    fn a_lost_race_is_read_again_and_retried() {
        let s = MemStore::default();
        s.fail_next_cas(3);
        assert_eq!(update(&s, "k", add_one).unwrap(), Some(1));
        assert_eq!(update(&s, "k", add_one).unwrap(), Some(2), "the value read again after each loss");
    }

    #[test]
    fn after_every_try_lost_the_caller_is_told() {
        let s = MemStore::default();
        s.fail_next_cas(MAX_CAS_TRIES);
        assert_eq!(update(&s, "k", add_one).unwrap(), None);
        assert_eq!(s.writes(), 0);
        assert_eq!(update(&s, "k", add_one).unwrap(), Some(1));
    }

    #[test]
    fn a_step_with_nothing_to_write_writes_nothing() {
        let s = MemStore::default();
        assert_eq!(update(&s, "k", |_| Step::Done(7)).unwrap(), Some(7));
        assert_eq!(s.writes(), 0);
    }

    #[test]
    fn a_key_created_by_another_worker_after_the_read_is_not_overwritten() {
        let s = MemStore::default();
        s.before_next_set(|s| {
            s.set("k", b"theirs", None).unwrap();
        });
        let mut reads = Vec::new();
        update(&s, "k", |value| {
            reads.push(value.map(<[u8]>::to_vec));
            Step::Write(b"mine".to_vec(), ())
        })
        .unwrap();
        assert_eq!(reads, vec![None, Some(b"theirs".to_vec())], "the write over a missing key lost, then retried");
    }
}
