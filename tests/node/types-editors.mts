// The editor bindings' declarations (`./codemirror`, `./monaco` entries) against the real
// editors' own types: the documented usage compiles, misuse does not.
import { AcpFs } from '@acp-fs/node';
import { bindCodeMirror, type CodeMirrorBinding } from '@acp-fs/node/codemirror';
import { bindMonaco, type MonacoBinding } from '@acp-fs/node/monaco';
import { EditorView } from '@codemirror/view';
import * as monaco from 'monaco-editor/editor/editor.api.js';

export async function main(fs: AcpFs, view: EditorView) {
  const read = async (path: string) => `text of ${path}`;
  const cm: CodeMirrorBinding = bindCodeMirror(fs, view, { path: '/w/a.ts', read, onDirtyChange: (dirty: boolean) => void dirty });
  const dirty: boolean = cm.dirty;
  cm.saved();
  const reloaded: boolean = await cm.reload();
  cm.dispose();
  bindCodeMirror(fs, view, { path: '/w/a.ts', clean: false, onDocumentWrite: (_p, _t, { clean }) => (clean ? 'writeThrough' : 'buffer') });
  // @ts-expect-error: the path is required
  bindCodeMirror(fs, view, {});
  // @ts-expect-error: a choice is 'buffer' or 'writeThrough'
  bindCodeMirror(fs, view, { path: '/w/a.ts', onDocumentWrite: () => 'disk' });

  const mo: MonacoBinding = bindMonaco(fs, monaco, { read, onDirtyChange: (model, d) => void [model.uri, d] });
  const model = monaco.editor.createModel('x', 'plaintext', monaco.Uri.file('/w/b.ts'));
  const moDirty: boolean = mo.isDirty(model);
  mo.saved(model);
  await mo.reload(model, 'y');
  mo.dispose();
  // @ts-expect-error: the monaco namespace, not an editor
  bindMonaco(fs, model);

  const detach: () => void = fs.documents.attach('/w/c.ts', { write: () => 'buffer', stale: () => {} });
  detach();
  console.log(dirty, reloaded, moDirty);
}
