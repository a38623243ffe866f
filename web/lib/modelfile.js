// A model file of the user's, picked in an <input type=file> and opened in the worker as an
// instance of `cls` ('HAN', 'Seq2Seq', 'LanguageModel'): `note` says it is loading, then
// onLoaded({ url, info, file }) takes over; when opening fails, note is cleared and
// onError('could not load NAME: why') shows it. The input is reset either way, so picking
// the same file again loads it again.
export function onModelFile(input, note, cls, call, onLoaded, onError) {
  input.addEventListener('change', async () => {
    const file = input.files[0];
    if (!file) return;
    note.textContent = `loading ${file.name}…`;
    try {
      const bytes = new Uint8Array(await file.arrayBuffer());
      const { url, info } = await call('openFile', { cls, name: file.name, bytes });
      await onLoaded({ url, info, file });
    } catch (e) {
      note.textContent = '';
      onError(`could not load ${file.name}: ${e.message}`);
    } finally {
      input.value = '';
    }
  });
}
