import type { CheckoutConfig } from '@osint/contract/pricing';
import { useEffect, useState } from 'react';

/** The part of FastSpring's Store Builder Library this page uses. */
interface StoreBuilder {
  secure(payload: unknown, key: string): unknown;
  checkout(): unknown;
  reset?(): unknown;
}

declare global {
  interface Window {
    fastspring?: { builder?: StoreBuilder };
    osintFastSpringPopupClosed?: (order: { id?: string; reference?: string } | null) => void;
  }
}

export type StoreBuilderState = 'idle' | 'not-configured' | 'loading' | 'ready' | 'failed';

const SCRIPT_ID = 'fsc-api';
let loading: Promise<void> | undefined;

/**
 * Loads the Store Builder script once per page life, with the storefront and access key of the server's
 * configuration. "not-configured" when the server has no storefront: the page says so instead of failing
 * silently.
 */
export function useStoreBuilder(config: CheckoutConfig | undefined, wanted: boolean): StoreBuilderState {
  const [loaded, setLoaded] = useState<'pending' | 'ready' | 'failed'>('pending');
  const configured = config?.configured === true;
  useEffect(() => {
    if (!config || !configured || !wanted || window.fastspring?.builder) return;
    let live = true;
    loading ??= new Promise<void>((resolve, reject) => {
      const script = document.createElement('script');
      script.id = SCRIPT_ID;
      script.type = 'text/javascript';
      script.src = config.scriptUrl;
      script.dataset.storefront = config.storefront;
      if (config.accessKey) script.dataset.accessKey = config.accessKey;
      script.dataset.popupClosed = 'osintFastSpringPopupClosed';
      script.onload = () =>
        window.fastspring?.builder ? resolve() : reject(new Error('no fastspring.builder'));
      script.onerror = () => reject(new Error(`could not load ${config.scriptUrl}`));
      document.head.append(script);
    }).catch((error: unknown) => {
      loading = undefined;
      document.getElementById(SCRIPT_ID)?.remove();
      throw error;
    });
    loading.then(
      () => live && setLoaded('ready'),
      (error: unknown) => {
        // Spec 001 §8: a card script load failure is logged only; the page offers no card checkout, silently.
        console.error('Store Builder script failed to load', error);
        if (live) setLoaded('failed');
      },
    );
    return () => {
      live = false;
    };
  }, [config, configured, wanted]);
  if (!config || !wanted) return 'idle';
  if (!configured) return 'not-configured';
  if (window.fastspring?.builder) return 'ready';
  return loaded === 'failed' ? 'failed' : 'loading';
}

/** Hands a session to the Store Builder: the secure payload and key, or plain JSON with an empty key. */
export function pushSession(payload: string, key: string): void {
  const builder = window.fastspring?.builder;
  if (!builder) throw new Error('Store Builder not loaded');
  builder.secure(key ? payload : JSON.parse(payload), key);
}

export function openCheckout(): void {
  window.fastspring?.builder?.checkout();
}
