//! The order in which the entries of a bounded map (the read ledger, the line index) were last
//! used, least recent first: a doubly linked list threaded through a vector. Moving an entry to
//! the recent end, taking the least recent or dropping one is a few index writes, with no
//! allocation once the vector has grown and no scan of the map: the ledger's `BTreeMap` keyed by
//! a clock allocated on every move and was 6 KB of the fs/* wasm module, and the line index
//! looked for its oldest entry through all of them.

/// No place: the end of the list, or an empty list.
const NONE: u32 = u32::MAX;

#[derive(Debug)]
struct Link {
    key: String,
    older: u32,
    newer: u32,
}

/// Keys in order of use; each has a place (`u32`) that stays its own until it is removed.
#[derive(Debug)]
pub(crate) struct Recency {
    links: Vec<Link>,
    /// Places of removed keys, given to the next keys pushed.
    free: Vec<u32>,
    oldest: u32,
    newest: u32,
}

impl Default for Recency {
    fn default() -> Self {
        Recency { links: Vec::new(), free: Vec::new(), oldest: NONE, newest: NONE }
    }
}

impl Recency {
    /// Adds `key` as the most recent; its place.
    pub fn push(&mut self, key: String) -> u32 {
        let link = Link { key, older: NONE, newer: NONE };
        let at = match self.free.pop() {
            Some(at) => {
                self.links[at as usize] = link;
                at
            }
            None => {
                self.links.push(link);
                (self.links.len() - 1) as u32
            }
        };
        self.attach(at);
        at
    }

    /// Makes the key at `at` the most recent.
    pub fn touch(&mut self, at: u32) {
        if self.newest != at {
            self.detach(at);
            self.attach(at);
        }
    }

    /// Removes the key at `at`; the key.
    pub fn remove(&mut self, at: u32) -> String {
        self.detach(at);
        self.free.push(at);
        std::mem::take(&mut self.links[at as usize].key)
    }

    /// The least recent key, `None` when there are none.
    pub fn oldest(&self) -> Option<&str> {
        (self.oldest != NONE).then(|| self.links[self.oldest as usize].key.as_str())
    }

    /// Removes the least recent key; the key, `None` when there are none.
    pub fn pop_oldest(&mut self) -> Option<String> {
        (self.oldest != NONE).then(|| self.remove(self.oldest))
    }

    /// Links `at` in as the most recent.
    fn attach(&mut self, at: u32) {
        let link = &mut self.links[at as usize];
        link.older = self.newest;
        link.newer = NONE;
        match self.newest {
            NONE => self.oldest = at,
            newest => self.links[newest as usize].newer = at,
        }
        self.newest = at;
    }

    /// Takes `at` out of the list, its neighbours joined.
    fn detach(&mut self, at: u32) {
        let Link { older, newer, .. } = self.links[at as usize];
        match older {
            NONE => self.oldest = newer,
            older => self.links[older as usize].newer = newer,
        }
        match newer {
            NONE => self.newest = older,
            newer => self.links[newer as usize].older = older,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[derive(Clone, Debug)]
    enum Op {
        Push,
        Touch(usize),
        Remove(usize),
        PopOldest,
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            Just(Op::Push),
            any::<usize>().prop_map(Op::Touch),
            any::<usize>().prop_map(Op::Remove),
            Just(Op::PopOldest)
        ]
    }

    /// Every key in order, least recent first, by walking the links from the oldest (and
    /// checking the walk back from the newest agrees).
    fn order(r: &Recency) -> Vec<String> {
        let mut forward = Vec::new();
        let mut at = r.oldest;
        while at != NONE {
            forward.push(r.links[at as usize].key.clone());
            at = r.links[at as usize].newer;
        }
        let mut back = Vec::new();
        let mut at = r.newest;
        while at != NONE {
            back.push(r.links[at as usize].key.clone());
            at = r.links[at as usize].older;
        }
        back.reverse();
        assert_eq!(forward, back, "the two directions disagree");
        forward
    }

    proptest! {
        /// The list against the plainest model of it: a vector in order of use.
        #[test]
        fn keeps_the_order_a_vector_of_keys_would(ops in prop::collection::vec(op(), 0..200)) {
            let mut recency = Recency::default();
            // The model: (key, place) least recent first.
            let mut model: Vec<(String, u32)> = Vec::new();
            let mut next = 0;
            for op in ops {
                match op {
                    Op::Push => {
                        let key = format!("k{next}");
                        next += 1;
                        let at = recency.push(key.clone());
                        prop_assert!(model.iter().all(|(_, a)| *a != at), "a place in use was given again");
                        model.push((key, at));
                    }
                    Op::Touch(i) if !model.is_empty() => {
                        let entry = model.remove(i % model.len());
                        recency.touch(entry.1);
                        model.push(entry);
                    }
                    Op::Remove(i) if !model.is_empty() => {
                        let (key, at) = model.remove(i % model.len());
                        prop_assert_eq!(recency.remove(at), key);
                    }
                    Op::PopOldest => {
                        prop_assert_eq!(recency.oldest(), model.first().map(|(k, _)| k.as_str()));
                        let expected = (!model.is_empty()).then(|| model.remove(0).0);
                        prop_assert_eq!(recency.pop_oldest(), expected);
                    }
                    _ => {}
                }
                let keys: Vec<String> = model.iter().map(|(k, _)| k.clone()).collect();
                prop_assert_eq!(order(&recency), keys);
            }
        }
    }
}
