//! Checks a generated static site: every page's tags balance, entities are well formed,
//! every internal `href`/`src` names an existing file, and nothing is loaded from the
//! network.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

const VOID: &[&str] = &[
    "meta", "link", "br", "hr", "img", "input", "col", "area", "base", "wbr",
];

fn html_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            html_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "html") {
            out.push(p);
        }
    }
}

fn attr<'a>(tag: &'a str, name: &str) -> Vec<&'a str> {
    let mut out = Vec::new();
    let pat = format!(" {name}=\"");
    let mut rest = tag;
    while let Some(i) = rest.find(&pat) {
        let after = &rest[i + pat.len()..];
        let end = after.find('"').expect("attribute value closed");
        out.push(&after[..end]);
        rest = &after[end..];
    }
    out
}

fn check_entities(text: &str, page: &Path) {
    let mut rest = text;
    while let Some(i) = rest.find('&') {
        let after = &rest[i + 1..];
        let end = after
            .find(';')
            .unwrap_or_else(|| panic!("{}: bare &", page.display()));
        let ent = &after[..end];
        let ok = matches!(ent, "amp" | "lt" | "gt" | "quot" | "#39")
            || (ent.starts_with('#') && ent[1..].chars().all(|c| c.is_ascii_digit()));
        assert!(ok, "{}: unknown entity &{ent};", page.display());
        rest = &after[end..];
    }
}

/// Checks one page; returns nothing, panics with the page and the fault.
pub fn check_page(page: &Path) {
    let text = std::fs::read_to_string(page).unwrap();
    assert!(text.starts_with("<!DOCTYPE html>"), "{}", page.display());
    let mut stack: Vec<String> = Vec::new();
    let mut rest = text.as_str();
    while let Some(open) = rest.find('<') {
        check_entities(&rest[..open], page);
        let after = &rest[open + 1..];
        let close = after
            .find('>')
            .unwrap_or_else(|| panic!("{}: unclosed tag", page.display()));
        let tag = &after[..close];
        rest = &after[close + 1..];
        if tag.starts_with('!') {
            continue;
        }
        assert!(
            !tag.contains('<'),
            "{}: '<' inside tag {tag}",
            page.display()
        );
        check_entities(tag, page);
        for url in attr(tag, "href").into_iter().chain(attr(tag, "src")) {
            assert!(
                !url.contains("://") && !url.starts_with("//"),
                "{}: external link {url}",
                page.display()
            );
            if url.starts_with('#') {
                continue;
            }
            let target = page.parent().unwrap().join(url.split('#').next().unwrap());
            assert!(target.is_file(), "{}: broken link {url}", page.display());
        }
        if let Some(name) = tag.strip_prefix('/') {
            let top = stack.pop();
            assert_eq!(
                top.as_deref(),
                Some(name.trim()),
                "{}: </{name}> closes the wrong tag",
                page.display()
            );
            continue;
        }
        let name: String = tag
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric())
            .collect::<String>()
            .to_ascii_lowercase();
        assert!(!name.is_empty(), "{}: bad tag <{tag}>", page.display());
        if tag.ends_with('/') || VOID.contains(&name.as_str()) {
            continue;
        }
        if name == "style" || name == "script" {
            assert_ne!(
                name,
                "script",
                "{}: scripts are not expected",
                page.display()
            );
            let end = rest.find("</style>").expect("style closed");
            rest = &rest[end..];
        }
        stack.push(name);
    }
    check_entities(rest, page);
    assert!(stack.is_empty(), "{}: unclosed {stack:?}", page.display());
}

/// Checks every page under `dir`; returns how many there are.
pub fn check_site(dir: &Path) -> usize {
    let mut pages = Vec::new();
    html_files(dir, &mut pages);
    assert!(dir.join("index.html").is_file());
    for p in &pages {
        check_page(p);
    }
    pages.len()
}
