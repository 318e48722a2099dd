/**
 * Confirmation before destructive actions (stop, teardown, separate, delete record, rollback):
 * a modal <dialog> naming what will happen, with an optional text field (re-plan guidance, a fork
 * name). Nothing is sent until the user confirms.
 */
import { useEffect, useRef, useState } from 'preact/hooks';

export interface ConfirmRequest {
  readonly title: string;
  readonly message: string;
  readonly confirm: string;
  readonly danger: boolean;
  /** Ask for text (label, placeholder); the confirmed value goes to `onConfirm`. */
  readonly input?: { readonly label: string; readonly placeholder?: string; readonly multiline?: boolean };
  onConfirm(value: string): void;
}

export function ConfirmDialog({ request, onClose }: { request: ConfirmRequest | null; onClose: () => void }) {
  const ref = useRef<HTMLDialogElement>(null);
  const [value, setValue] = useState('');
  useEffect(() => {
    const d = ref.current;
    if (!d) return;
    if (request && !d.open) {
      setValue('');
      d.showModal();
    }
    if (!request && d.open) d.close();
  }, [request]);
  return (
    <dialog ref={ref} class="dialog" data-testid="confirm-dialog" onClose={onClose} onCancel={onClose}>
      {request ? (
        <form
          method="dialog"
          onSubmit={(e) => {
            e.preventDefault();
            request.onConfirm(value);
            onClose();
          }}
        >
          <h3>{request.title}</h3>
          <p>{request.message}</p>
          {request.input ? (
            <label class="field">
              <span>{request.input.label}</span>
              {request.input.multiline ? (
                <textarea rows={4} value={value} placeholder={request.input.placeholder} onInput={(e) => setValue((e.target as HTMLTextAreaElement).value)} data-testid="dialog-input" />
              ) : (
                <input value={value} placeholder={request.input.placeholder} onInput={(e) => setValue((e.target as HTMLInputElement).value)} data-testid="dialog-input" />
              )}
            </label>
          ) : null}
          <div class="dialog-buttons">
            <button type="button" class="button" onClick={onClose} data-testid="dialog-cancel">
              Cancel
            </button>
            <button type="submit" class={`button ${request.danger ? 'danger' : 'primary'}`} data-testid="dialog-confirm">
              {request.confirm}
            </button>
          </div>
        </form>
      ) : null}
    </dialog>
  );
}
