//! How deep an HTML page nests, measured by html5ever's tokenizer alone
//! (linear in the page) before the tree is built: the tree builder scans
//! its stack of open elements at each tag, so a hostile page of 100,000
//! unclosed `<div>`s would take minutes there.

use std::cell::Cell;

use html5ever::tendril::StrTendril;
use html5ever::tokenizer::states::RawKind;
use html5ever::tokenizer::{
    BufferQueue, TagKind, Token, TokenSink, TokenSinkResult, Tokenizer, TokenizerOpts,
};

/// The deepest the page's elements nest, counting the tags that must be
/// closed (void elements and those whose end tag is optional, such as
/// `p` and `li`, are not counted: the parser closes them itself).
pub(super) fn nesting(source: &str) -> usize {
    let sink = Depth::default();
    let tokenizer = Tokenizer::new(sink, TokenizerOpts::default());
    let queue = BufferQueue::default();
    queue.push_back(StrTendril::from_slice(source));
    while let html5ever::TokenizerResult::Script(()) = tokenizer.feed(&queue) {}
    tokenizer.end();
    tokenizer.sink.deepest.get()
}

#[derive(Default)]
struct Depth {
    depth: Cell<usize>,
    deepest: Cell<usize>,
}

impl TokenSink for Depth {
    type Handle = ();

    fn process_token(&self, token: Token, _line: u64) -> TokenSinkResult<()> {
        let Token::TagToken(tag) = token else {
            return TokenSinkResult::Continue;
        };
        let name: &str = &tag.name;
        let counted = !tag.self_closing && !implied(name);
        match tag.kind {
            TagKind::StartTag => {
                if counted {
                    self.depth.set(self.depth.get() + 1);
                    self.deepest.set(self.deepest.get().max(self.depth.get()));
                }
                // The states the tree builder would switch the tokenizer to.
                match name {
                    "script" => TokenSinkResult::RawData(RawKind::ScriptData),
                    "style" | "xmp" | "iframe" | "noembed" | "noframes" => {
                        TokenSinkResult::RawData(RawKind::Rawtext)
                    }
                    "title" | "textarea" => TokenSinkResult::RawData(RawKind::Rcdata),
                    "plaintext" => TokenSinkResult::Plaintext,
                    _ => TokenSinkResult::Continue,
                }
            }
            TagKind::EndTag => {
                if counted {
                    self.depth.set(self.depth.get().saturating_sub(1));
                }
                TokenSinkResult::Continue
            }
        }
    }
}

/// Void elements, and elements whose end tag may be left out.
fn implied(name: &str) -> bool {
    matches!(
        name,
        "area"
            | "base"
            | "br"
            | "col"
            | "embed"
            | "hr"
            | "img"
            | "input"
            | "link"
            | "meta"
            | "source"
            | "track"
            | "wbr"
            | "html"
            | "head"
            | "body"
            | "p"
            | "li"
            | "dt"
            | "dd"
            | "option"
            | "optgroup"
            | "tr"
            | "td"
            | "th"
            | "thead"
            | "tbody"
            | "tfoot"
            | "colgroup"
            | "caption"
            | "rb"
            | "rt"
            | "rp"
            | "rtc"
    )
}
