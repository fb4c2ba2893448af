//! Hashing of stream ids for the per-worker map of requests. The map is touched three times per request (arrival,
//! end, and finding the worker that knows the stream), and std's SipHash guards against keys chosen by an attacker,
//! which these are not: Envoy numbers its contexts itself, one after another. A multiplication spreads consecutive
//! ids over the table's buckets at a fraction of SipHash's cost in the VM.

use std::hash::{BuildHasherDefault, Hasher};

pub type StreamIds = BuildHasherDefault<StreamIdHasher>;

#[derive(Default)]
pub struct StreamIdHasher(u64);

/// 2^64 divided by the golden ratio: odd, so the product is a bijection, and its bits are well mixed.
const SPREAD: u64 = 0x9E37_79B9_7F4A_7C15;

impl Hasher for StreamIdHasher {
    fn write(&mut self, bytes: &[u8]) {
        // Only u32 keys are hashed here; any other key still hashes correctly, byte by byte.
        for b in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(*b)).wrapping_mul(SPREAD);
        }
    }

    fn write_u32(&mut self, id: u32) {
        self.0 = (self.0 ^ u64::from(id)).wrapping_mul(SPREAD);
    }

    /// The product's high half, where every bit of the id has mixed in, becomes the low half the table takes its
    /// bucket from: the product's own low bits depend only on the id's low bits, so ids spaced by a power of two
    /// (two configurations taking new streams in turn) would fill only part of the buckets.
    fn finish(&self) -> u64 {
        self.0.rotate_left(32)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    #[test]
    fn ids_one_or_a_power_of_two_apart_spread_over_the_buckets_and_tags() {
        // hashbrown takes the bucket from the low bits and a tag from the top seven: both must vary.
        let hash = |id: u32| {
            let mut h = StreamIdHasher::default();
            h.write_u32(id);
            h.finish()
        };
        // 256 ids over 64 buckets and 128 tags leave about 63 and 111 of them used if spread at random; ids 2 or 8
        // apart hashed by their product's low bits alone would use at most 32 or 8 buckets.
        for stride in [1, 2, 8] {
            let ids = || (0..256u32).map(|i| 1000 + i * stride);
            let low: std::collections::HashSet<u64> = ids().map(|id| hash(id) & 63).collect();
            let top: std::collections::HashSet<u64> = ids().map(|id| hash(id) >> 57).collect();
            assert!(low.len() >= 56, "ids {stride} apart: {} distinct buckets of 64", low.len());
            assert!(top.len() >= 90, "ids {stride} apart: {} distinct tags of 128", top.len());
        }
    }

    #[test]
    fn a_map_keyed_by_stream_ids_finds_what_it_holds() {
        let mut map: HashMap<u32, u32, StreamIds> = HashMap::default();
        for id in 0..10_000u32 {
            map.insert(id.wrapping_mul(7), id);
        }
        assert!((0..10_000u32).all(|id| map.get(&id.wrapping_mul(7)) == Some(&id)));
        assert_eq!(map.len(), 10_000);
    }
}
