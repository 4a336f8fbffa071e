//! Grouping verified duplicate pairs into clusters.
//!
//! Connected components by union-find: documents linked by a chain of
//! duplicate pairs share a cluster. Each cluster's representative is its
//! earliest member by the caller's order (the likely original). Chain-resistant
//! modes and incremental updates build on this.

/// Disjoint sets over `0..n` with path halving and union by size.
#[derive(Debug, Clone)]
pub struct UnionFind {
    parent: Vec<usize>,
    size: Vec<usize>,
}

impl UnionFind {
    pub fn new(n: usize) -> Self {
        Self {
            parent: (0..n).collect(),
            size: vec![1; n],
        }
    }

    pub fn find(&mut self, mut x: usize) -> usize {
        while self.parent[x] != x {
            self.parent[x] = self.parent[self.parent[x]];
            x = self.parent[x];
        }
        x
    }

    pub fn union(&mut self, a: usize, b: usize) {
        let (mut a, mut b) = (self.find(a), self.find(b));
        if a == b {
            return;
        }
        if self.size[a] < self.size[b] {
            std::mem::swap(&mut a, &mut b);
        }
        self.parent[b] = a;
        self.size[a] += self.size[b];
    }
}

/// A group of two or more documents (indices into the caller's list).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cluster {
    /// Members in ascending order; the first is the representative.
    pub members: Vec<usize>,
}

impl Cluster {
    pub fn representative(&self) -> usize {
        self.members[0]
    }
}

/// Connected components of `n` documents joined by `edges`, keeping only
/// components of two or more; largest first, then by representative.
pub fn connected_components(
    n: usize,
    edges: impl IntoIterator<Item = (usize, usize)>,
) -> Vec<Cluster> {
    let mut uf = UnionFind::new(n);
    for (a, b) in edges {
        uf.union(a, b);
    }
    let mut groups: std::collections::BTreeMap<usize, Vec<usize>> = Default::default();
    for i in 0..n {
        let root = uf.find(i);
        groups.entry(root).or_default().push(i);
    }
    let mut clusters: Vec<Cluster> = groups
        .into_values()
        .filter(|m| m.len() > 1)
        .map(|members| Cluster { members })
        .collect();
    clusters.sort_by(|a, b| {
        b.members
            .len()
            .cmp(&a.members.len())
            .then(a.members[0].cmp(&b.members[0]))
    });
    clusters
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chains_join_and_singletons_drop() {
        let clusters = connected_components(6, [(0, 1), (1, 2), (4, 5)]);
        assert_eq!(
            clusters,
            [
                Cluster {
                    members: vec![0, 1, 2]
                },
                Cluster {
                    members: vec![4, 5]
                }
            ]
        );
        assert_eq!(clusters[1].representative(), 4);
    }
}
