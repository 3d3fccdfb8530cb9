// The exercise page's editor: CodeMirror 6 on a screen with a fine pointer, the plain textarea
// elsewhere (a phone). Either way the form is an ordinary form: the textarea holds the code and
// is what posts, so the page works without this script.
import { defaultKeymap, history, historyKeymap, indentWithTab } from "@codemirror/commands";
import { python } from "@codemirror/lang-python";
import {
  bracketMatching, defaultHighlightStyle, indentOnInput, syntaxHighlighting,
} from "@codemirror/language";
import { lintGutter, lintKeymap, setDiagnostics } from "@codemirror/lint";
import { highlightSelectionMatches, searchKeymap } from "@codemirror/search";
import { EditorState } from "@codemirror/state";
import {
  EditorView, drawSelection, highlightActiveLine, highlightActiveLineGutter,
  highlightSpecialChars, keymap, lineNumbers,
} from "@codemirror/view";

// CodeMirror's basicSetup, less what sets style attributes the page's CSP refuses (the
// crosshair cursor of rectangular selection) and the completion popup (nothing to complete).
const setup = [
  lineNumbers(),
  highlightActiveLineGutter(),
  highlightSpecialChars(),
  history(),
  drawSelection(),
  EditorState.tabSize.of(4),
  indentOnInput(),
  syntaxHighlighting(defaultHighlightStyle, { fallback: true }),
  bracketMatching(),
  highlightActiveLine(),
  highlightSelectionMatches(),
  keymap.of([...defaultKeymap, ...searchKeymap, ...historyKeymap, ...lintKeymap]),
];

let view = null;

function press(id) {
  const button = document.getElementById(id);
  if (!button) return false;
  button.click();
  return true;
}

function lineRange(text, line) {
  const lines = text.split("\n");
  const n = Math.max(1, Math.min(line, lines.length));
  let from = 0;
  for (let i = 0; i < n - 1; i += 1) from += lines[i].length + 1;
  return [from, from + lines[n - 1].length];
}

function showSyntaxError() {
  const result = document.getElementById("result");
  if (!result) return;
  const line = parseInt(result.dataset.syntaxLine || "", 10);
  if (view) {
    let diagnostics = [];
    if (line > 0) {
      const at = view.state.doc.line(Math.min(line, view.state.doc.lines));
      diagnostics = [{ from: at.from, to: at.to, severity: "error", message: result.dataset.syntaxMessage || "SyntaxError" }];
    }
    view.dispatch(setDiagnostics(view.state, diagnostics));
  }
}

function goToLine(line) {
  const textarea = document.getElementById("code");
  if (view) {
    const at = view.state.doc.line(Math.max(1, Math.min(line, view.state.doc.lines)));
    view.dispatch({ selection: { anchor: at.from, head: at.to }, scrollIntoView: true });
    view.focus();
  } else if (textarea) {
    const [from, to] = lineRange(textarea.value, line);
    textarea.focus();
    textarea.setSelectionRange(from, to);
  }
}

function shortcuts(event) {
  if (event.key !== "Enter" || !(event.ctrlKey || event.metaKey)) return;
  event.preventDefault();
  if (event.shiftKey) press("submit");
  else press("run") || press("submit");
}

function enhance(textarea) {
  view = new EditorView({
    doc: textarea.value,
    extensions: [
      setup,
      python(),
      lintGutter(),
      keymap.of([
        { key: "Mod-Shift-Enter", run: () => press("submit") },
        { key: "Mod-Enter", run: () => press("run") || press("submit") },
        indentWithTab,
      ]),
      EditorView.updateListener.of((update) => {
        if (update.docChanged) textarea.value = update.state.doc.toString();
      }),
      EditorView.contentAttributes.of({ "aria-label": "Your solution (Python)", "aria-describedby": "editor-keys" }),
      EditorView.cspNonce.of(textarea.dataset.cspNonce || ""),
    ],
  });
  textarea.hidden = true;
  textarea.insertAdjacentElement("beforebegin", view.dom);
  view.dom.classList.add("code-editor");
}

function start() {
  const textarea = document.getElementById("code");
  if (!textarea) return;
  if (window.matchMedia("(pointer: fine)").matches) enhance(textarea);
  else textarea.addEventListener("keydown", shortcuts);
  showSyntaxError();
  document.body.addEventListener("htmx:afterSettle", showSyntaxError);
  document.addEventListener("click", (event) => {
    const link = event.target.closest(".syntax-jump");
    if (!link) return;
    event.preventDefault();
    goToLine(parseInt(link.dataset.line, 10));
  });
  document.body.classList.add("editor-ready");
}

if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
else start();
