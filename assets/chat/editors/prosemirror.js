// The ProseMirror composer (editor: "prosemirror"): the same editor as the local page's own
// /pm-editor.js, re-exported so that every editor of the matrix is found in this folder.
export { mount } from "../pm-editor.js";
