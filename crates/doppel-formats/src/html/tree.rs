//! Any HTML, as browsers parse it: html5ever (through `scraper`) builds an
//! arena tree (implied end tags, entities, broken markup), and the walk
//! over it keeps an explicit stack, so nesting never grows the call stack.
//! A page nested deeper than the limit is refused before the tree is built
//! (`depth`: the tree builder is quadratic in the depth).

use ego_tree::NodeRef;
use scraper::{Html, Node};

use super::walk::{Element, Enter, Walk};
use super::{depth, for_html5ever, Extract};
use crate::{Format, FormatError, Limits};

impl Element for scraper::node::Element {
    fn name(&self) -> &str {
        scraper::node::Element::name(self)
    }

    fn attr(&self, name: &str) -> Option<&str> {
        scraper::node::Element::attr(self, name)
    }
}

/// The reading text of the HTML `source`, parsed by html5ever.
pub(super) fn extract(
    source: &str,
    limits: &Limits,
    format: Format,
) -> Result<Extract, FormatError> {
    let over = || FormatError::OverLimit {
        format,
        reason: format!(
            "elements nested more than {} deep (the depth limit)",
            limits.max_depth
        ),
    };
    let source = for_html5ever(source);
    if depth::nesting(&source) > limits.max_depth {
        return Err(over());
    }
    let document = Html::parse_document(&source);
    let mut walk = Walk::default();

    enum Step<'a> {
        Enter(NodeRef<'a, Node>, usize),
        Leave,
    }
    let mut stack = vec![Step::Enter(document.tree.root(), 0)];
    while let Some(step) = stack.pop() {
        let (node, depth) = match step {
            Step::Enter(node, depth) => (node, depth),
            Step::Leave => {
                walk.close();
                continue;
            }
        };
        // The tree's own depth too (html5ever adds html, body…).
        if depth > limits.max_depth + 8 {
            return Err(over());
        }
        match node.value() {
            Node::Text(text) => {
                walk.text(text);
                continue;
            }
            Node::Element(element) => match walk.open(element) {
                Enter::Skip => continue,
                Enter::Descend => stack.push(Step::Leave),
            },
            Node::Document | Node::Fragment => {}
            _ => continue,
        }
        // Children pushed last first, so the first is walked first.
        for child in node.children().rev() {
            stack.push(Step::Enter(child, depth + 1));
        }
    }
    Ok(walk.finish())
}
