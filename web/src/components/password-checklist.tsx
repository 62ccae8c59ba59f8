import { PASSWORD_RULES } from '@osint/contract/password';

/**
 * Spec 000 §5 live checklist: neutral until the field has been focused, then each rule is red or green.
 */
export function PasswordChecklist({ password, touched }: { password: string; touched: boolean }) {
  return (
    <ul className="password-checklist" aria-label="Requirements">
      {PASSWORD_RULES.map((rule) => {
        const met = rule.test(password);
        const state = !touched ? 'idle' : met ? 'met' : 'unmet';
        return (
          <li key={rule.id} className={`password-checklist__item password-checklist__item--${state}`}>
            <span className="password-checklist__mark" aria-hidden="true">
              {state === 'met' ? '✓' : state === 'unmet' ? '✕' : '•'}
            </span>
            {rule.label}
            {touched && <span className="visually-hidden">{met ? ' (met)' : ' (not met)'}</span>}
          </li>
        );
      })}
    </ul>
  );
}
