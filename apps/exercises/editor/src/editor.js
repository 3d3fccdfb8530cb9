// The exercise page's editor: CodeMirror 6 on a screen with a fine pointer, the plain textarea
// elsewhere (a phone). Either way the form is an ordinary form: the textarea holds the code and
// is what posts, so the page works without this script.
import { basicSetup } from "codemirror";
import { indentWithTab } from "@codemirror/commands";
import { python } from "@codemirror/lang-python";
import { lintGutter, setDiagnostics } from "@codemirror/lint";
import { EditorView, keymap } from "@codemirror/view";

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
      basicSetup,
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
