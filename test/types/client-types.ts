// Type-level tests of the client, checked by `npm run check` (tsc): every @ts-expect-error
// proves the line after it does not compile.
import { createAnimalStoreClient, type ApiErrorBody, type Pet } from '@animal-store/client';

const client = createAnimalStoreClient({ apiKey: 'as_prod_x' });

export async function calls(): Promise<void> {
  const listed: Pet[] | undefined = (await client.GET('/pets', { params: { query: { limit: 5, status: 'sold' } } })).data;
  void listed;

  // @ts-expect-error limit is a number
  await client.GET('/pets', { params: { query: { limit: '5' } } });
  // @ts-expect-error 'lost' is not a PetStatus
  await client.GET('/pets', { params: { query: { status: 'lost' } } });
  // @ts-expect-error there is no /owners
  await client.GET('/owners');
  // @ts-expect-error a new animal needs a name
  await client.POST('/pets', { body: { categoryId: 3 } });
  // @ts-expect-error petId is a number
  await client.GET('/pets/{petId}', { params: { path: { petId: 'seven' } } });

  const { error } = await client.GET('/pets/{petId}', { params: { path: { petId: 7 } } });
  if (error) {
    const body: ApiErrorBody = error;
    // @ts-expect-error the error code is one of the contract's, not any string
    const code: 'made_up' = body.code;
    void code;
  }
}

// @ts-expect-error an API key is required
createAnimalStoreClient({ environment: 'production' });
// @ts-expect-error only the contract's environments exist
createAnimalStoreClient({ apiKey: 'x', environment: 'development' });
